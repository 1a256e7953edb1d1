"""``arena tournament``: a class's dungeon teams' programs, sandboxed, play each other on a
private server (docs/tournament.md): ``teams`` (the TOML file), ``pairings`` (the plan and the
seeds), ``programs`` (starting a team's program), ``runner`` (the matches, journaled),
``standings`` and ``report`` (the leaderboard), ``board`` and ``web`` (the live page), ``cli``.

Part of the command line, so it may import every layer below it: :mod:`server` (the dungeon's
server, the sandbox, the web layer), :mod:`client` (the built-in teams), :mod:`replay`,
:mod:`dungeon`, :mod:`sim` (the journal, plugins) and the rest of :mod:`arena`; nothing outside
:mod:`arena` imports it.
"""
