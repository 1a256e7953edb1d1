"""Penguins: Fish on a square grid, played by programs that take turns on one board file.

Modules: ``boardfile`` (the text format: parser and byte-preserving writer), ``rules`` (the
square-grid rules over the shared floes core), ``strategies`` (random, greedy, alphabeta),
``player`` (the player program and ``arena penguins``), ``interactive`` (``arena penguins play``),
``master`` (a game master running player programs on one board file) and ``game`` (the
simulator's ``sim.game.Game``).

Everything on the player program's path imports only the standard library, and not even the
slow parts of it (typing, dataclasses, argparse, re): one call must finish in a few
milliseconds, as the game master calls it once per move.
"""
