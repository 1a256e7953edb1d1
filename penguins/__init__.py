"""Penguins: Fish on a square grid, played by programs that take turns on one board file.

Modules: ``rules`` (the square-grid rules over the shared floes core), ``strategies`` (random,
greedy, alphabeta, minimax2, territory), ``naming`` (the player's ``name`` call, alone),
``interactive`` (``arena penguins play``), ``judge`` (a call's board file against the one
before), ``referee`` (a game of player programs: which call comes next and what a call did, in
the referees' one vocabulary, :mod:`floes.effects`), ``facts`` (the game's facts, declared once)
and ``game`` (the simulator's ``sim.game.Game``). The board file (parser and
byte-preserving writer) is :mod:`protocol.penguins`, the player program :mod:`client.penguins`,
the game master running sandboxed player programs :mod:`server.penguins` (its command line is
``arena/penguins.py``).

Everything on the player program's path imports only the standard library, and not even the
slow parts of it (typing, dataclasses, argparse, re): one call must finish in a few
milliseconds, as the game master calls it once per move.
"""
