"""Labyrinth (spec labyrinth.md): the rules, maze generation, the training players and the
rotator bot, pictures, terminal play, the simulator adapter, and the pure parts of the course's
2017-protocol server (session, table, tournament). Its wire is :mod:`protocol.labyrinth`, its
server shell :mod:`server.labyrinth`, its client :mod:`client.labyrinth`; its command is `arena
labyrinth` (arena/labyrinth.py).

Its facts are declared once, ``rules.GAME_TYPE``; the table speaks the referees' one vocabulary
(:mod:`floes.effects`).

May import the standard library, :mod:`protocol`, :mod:`floes` (the shared referee vocabulary)
and :mod:`sim.game` (the game interface); render imports matplotlib lazily for PNG pictures.
Pure: no trio, socket, subprocess, asyncio or dask (import-linter contracts). Never imports
:mod:`arena`, the dungeon or another game.
"""
