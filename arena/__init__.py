"""The ``arena`` command line: the one front door to every part of the project.

``arena.main`` dispatches to one module per command (``serve``, ``team``, ``match``, ``dungeon``,
``sim``, ``replay``, ``fish``, ``penguins``, ``labyrinth``); ``errors``, ``options`` and ``logs``
hold what the commands share. This is the top layer: it may import every other package, and no
package imports it. Keep this file free of imports: ``penguins-player`` and the Fish harnesses
start through here and must start in milliseconds.
"""
