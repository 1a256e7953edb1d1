"""The simulator: thousands of headless matches of any game, with honest statistics.

``game`` (the one game interface, OpenSpiel-like), ``games`` (the registry of games by name),
``runner`` (seeds, seatings, jobs, results), ``backends`` (local process pool, Dask), ``journal``
(resume), ``stats`` (Wilson, Elo, SPRT, openskill), ``report`` and ``progress`` (tables, bars),
``dungeon`` (the headless dungeon driver: the dungeon as a ``sim.game.Game``) and ``fork``
(play on from a point of a match log). May import every game package, :mod:`client.strategies`
and :mod:`replay`; never :mod:`server` or :mod:`arena`.
"""
