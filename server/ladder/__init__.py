"""The class ladder (docs/ladder.md): submissions, versions, continuous rated matches."""
