"""Labyrinth (spec labyrinth.md): rules, maze generation, players, the rotator bot, pictures and
the `arena labyrinth` command. Standard library only, except matplotlib for --png (lazily).
"""
