"""Fish's server shell (trio): ``server`` (sign-up, the tournament manager, one referee per game),
``game`` (a game's task), ``remote`` (one remote player's connection, its socket tasks) and
``switchboard`` (the plain values between them, routed by player id). The rules, referee and
manager are pure, in :mod:`fish`; the wire is :mod:`protocol.fish`."""
