"""Hosting: the dungeon's trio server, and the hosting layers every game's server shares.

The dungeon server: ``app`` (``serve()`` and the listener), ``lobby`` (matches filling their
twelve slots), ``connection`` (one socket), ``handshake`` (a socket's lines until its ``start``
takes a slot), ``inbox`` (what a socket and its match's actor pass each other), ``detach`` (a
socket handed to another process), ``actor`` (one match: the only owner of its engine and log),
``optimum_checks`` (a match's optimum checks, as its actor runs them), ``optimum_pool`` (trap
optimum checks in worker processes), ``gc_policy`` (when the garbage collector runs).
The shared layer: ``net`` (listener, framed reading within budgets, bounded outbox, the
``Limits`` policy; game-neutral: imports trio and the standard library only, by contract).
May import: :mod:`dungeon`, :mod:`protocol`, :mod:`replay` (the match log writer), trio.
Each other game's server shell: ``fish``, ``labyrinth``, ``penguins`` (the game master).
Never imports :mod:`client`, :mod:`sim` or :mod:`arena` (import contracts in pyproject.toml).
"""
