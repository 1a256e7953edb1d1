"""Fish ("Hey, That's My Fish!"): hexagonal floes on the shared core (:mod:`floes`).

``rules`` (the hexagon geometry and Fish's rules), ``game`` (the simulator's FishGame),
``strategies`` (random, greedy, minimaxD, paranoid), ``data`` (the course's JSON data
definitions), ``harness`` (``arena fish xboard|xstate|xtree|xstrategy|xref``), ``fastjson``
(JSON for the harnesses without ``import json``).

The networked tournament's pure parts: ``referee`` (typed inputs, the effects of
:mod:`floes.effects`) and ``calls`` (its typed calls), ``manager`` and ``misbehave`` (the
misbehaving-client kit); ``gamelog``, ``loglines`` and ``replay`` (logs and their replay
tools). Its wire is
:mod:`protocol.fish`, its server shell :mod:`server.fish`, its client :mod:`client.fish`. Imports
no trio, socket or subprocess (import-linter contracts).
"""
