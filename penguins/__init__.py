"""Penguins: Fish on a square grid, played by programs that take turns on one board file.

Modules: ``boardfile`` (the text format: parser and byte-preserving writer), ``rules`` (the
square-grid rules over the shared floes core), ``strategies`` (random, greedy, alphabeta,
minimax2, territory), ``player`` (the player program), ``naming`` (its ``name`` call, alone),
``interactive`` (``arena penguins play``), ``judge`` (a call's board file against the one
before), ``master`` (a game master running sandboxed player programs on one board file; its
command line is ``arena/penguins.py``) and ``game`` (the simulator's ``sim.game.Game``).

Everything on the player program's path imports only the standard library, and not even the
slow parts of it (typing, dataclasses, argparse, re): one call must finish in a few
milliseconds, as the game master calls it once per move.
"""
