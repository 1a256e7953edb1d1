"""The dungeon's team strategies, pure (docs/reference-team.md): ``base`` (the interface, the
registry by name, make_strategy), ``knowledge`` (what a team knows from its messages),
``solver`` (trap solving), and the strategies ``reference``, ``rusher`` and ``random_walk``.

A pure core: may import :mod:`protocol` (the messages), :mod:`dungeon` (graph helpers, the SAT
calls, the C core), numpy and scipy; never trio, socket, subprocess, asyncio, dask, the team
client's shell (:mod:`client.team`), :mod:`server`, :mod:`sim` or :mod:`arena`
(import-linter contracts). The same objects play over the network and in the simulator.
"""
