"""The class ladder (docs/ladder.md): submissions, versions, continuous rated matches.

Storage: a database of teams, tokens, versions, matches and ratings (``schema``, ``db``,
migrations in ``migrations/``) and a content-addressed store of files (``store``); the
scheduling policy (``schedule``)."""
