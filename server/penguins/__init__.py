"""The Penguins game master (``master``): player programs take turns on one board file, each
under :mod:`server.sandbox`. The rules and the judge are pure, in :mod:`penguins`; the board
file is :mod:`protocol.penguins`."""
