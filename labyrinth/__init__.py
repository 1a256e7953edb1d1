"""Labyrinth (spec labyrinth.md): the rules, maze generation, the training players and the
rotator bot, pictures, terminal play, the simulator adapter, and both sides of the course's 2017
protocol: the client (online) and the server (wire, session, table, tournament: pure; gamerun and
server: the trio shell; web: the teacher's page). Its command is `arena labyrinth`
(arena/labyrinth.py).

May import the standard library and :mod:`sim.game` (the game interface); its network parts
also trio, :mod:`server.net` (the shared network layer) and :mod:`server.web` with Starlette (the
one web layer); render imports matplotlib lazily for PNG pictures. The rules, generation,
players, rotator, game adapter, wire, session, table and tournament are pure cores: no trio,
socket, subprocess, asyncio or dask (import-linter contracts). Never imports :mod:`arena`, the
dungeon or another game.
"""
