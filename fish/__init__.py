"""Fish ("Hey, That's My Fish!"): hexagonal floes on the shared core (:mod:`floes`).

``rules`` (the hexagon geometry and Fish's rules), ``game`` (the simulator's FishGame),
``strategies`` (random, greedy, minimaxD, paranoid), ``codec`` (the course's JSON data
definitions), ``harness`` and ``cli`` (``arena fish xboard|xstate|xtree|xstrategy|xref``),
``fastjson`` (JSON for the harnesses without ``import json``).
"""
