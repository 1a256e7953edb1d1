"""The dungeon's match never sees its sockets: the actor and everything it imports, at the top of
a file, in a function or under ``TYPE_CHECKING``, import no module of the socket's side (the
connection, its reading loop, the handshake, the server that makes them) nor the socket's state
(its seat: server.seat). What crosses between a socket and its match is values (server.inbox),
both ways."""

from __future__ import annotations

import grimp

SOCKET_SIDE = {
    "server.connection",
    "server.reading",
    "server.handshake",
    "server.app",
    "server.seat",
}


def test_the_match_actor_imports_nothing_of_the_socket_side() -> None:
    graph = grimp.build_graph("server", "dungeon", "protocol", "replay", "floes", cache_dir=None)
    imported = graph.find_upstream_modules("server.actor")
    assert "server.inbox" in imported  # the values it takes and answers with
    assert SOCKET_SIDE.isdisjoint(imported), sorted(SOCKET_SIDE & imported)
