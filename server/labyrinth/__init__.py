"""The Labyrinth server shell of the course's 2017 protocol (trio): ``server`` (the lobby, games
and tournaments on :mod:`server.net`), ``gamerun`` (a hosted game's records and page views) and
``web`` (the teacher's page on :mod:`server.web`, with its assets in ``static/``). The rules,
session and table are pure, in :mod:`labyrinth`; the wire is :mod:`protocol.labyrinth`."""
