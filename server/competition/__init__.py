"""The competition of every game (docs/tournament.md): a class's programs, sandboxed, play each
other on our own servers. ``teams`` (the TOML file), ``pairings`` (the plan and the seeds),
``competition`` (the game-neutral core: batches, journal, resume, ``--add``/``--rerun``,
pre-flight), one adapter per game (``dungeon``, ``fish``, ``labyrinth``, ``penguins``: how one
match is played), ``programs`` (starting a team's program), ``standings`` and ``report`` (the
leaderboard, results.json/.csv, bundles), ``board`` and ``web`` (the live page), ``match``
(one match of any game between given programs, for the ladder).

Part of the server: it never imports the client, the simulator or the command line. What the
dungeon's built-in teams need from the client (resolving a strategy's name, playing it) is
handed in by the caller (:class:`~server.competition.teams.Players`).
"""
