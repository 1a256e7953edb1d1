"""The dungeon's rules (spec dungeon.md §1-3, §6): pure data and functions.

``config`` (every *(config)* number), ``generation`` (the dungeon of a seed), ``traps`` and
``sat`` (trap problems and their optimum), ``visibility`` (who sees whom) and ``engine`` (the
rules state machine: requests in, messages out). No sockets, clocks, files or global
randomness: the caller passes a seeded generator. May import: :mod:`protocol` (the messages it
emits), numpy, scipy, pysat. Imported by everything above it; imports none of it.
"""
