"""Every game's client programs.

The dungeon: ``team`` (the trio shell: six sockets driving one team strategy) and ``strategies``
(pure team strategies: rusher, random, classic, reference, and what a team knows). Fish:
``fish`` (an AI or misbehaving remote player, trio). Labyrinth: ``labyrinth`` (playing on a
2017-protocol server, blocking sockets) and ``labyrinth_c/client.c`` (our C client on the
course's C API). Penguins: ``penguins`` (the player program; standard library only, it starts
in milliseconds). May import :mod:`protocol`, the games' pure packages, trio. Never imports
:mod:`server`, :mod:`sim` or :mod:`arena`.
"""
