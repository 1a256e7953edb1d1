"""Fish's server shell (trio): ``server`` (sign-up, the tournament manager, one referee per game)
and ``remote`` (one remote player's connection). The rules, referee and manager are pure, in
:mod:`fish`; the wire is :mod:`protocol.fish`."""
