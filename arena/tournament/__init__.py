"""``arena tournament``: the command line of the competition (docs/tournament.md): ``cli``
(argument parsing, printing, exit codes) and ``players`` (our own built-in players, handed to
the competition). The competition itself (teams file, pairings, the per-game adapters,
standings, report, live page) is :mod:`server.competition`.
"""
