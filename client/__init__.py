"""The dungeon's team client: six sockets driving one team strategy.

``team`` (the trio shell: connections, codec, the strategy's messages) and ``strategies`` (pure
team strategies: rusher, random, classic, reference, and what a team knows). May import
:mod:`protocol`, :mod:`dungeon` (graph helpers and the SAT calls), trio. Never imports
:mod:`server`, :mod:`sim` or :mod:`arena`.
"""
