"""The shared trio network layer every game's server is built on (nothing game-specific here).

A server built on it::

    limits = DEFAULT_LIMITS.replace(idle_seconds=600)
    gate = Gate(limits)                          # the connection cap and the input budget

    async def handle(stream: trio.abc.Stream) -> None:
        transport = Transport(stream, receive_bytes=limits.receive_bytes)
        if (why := gate.enter()) is not None:    # refused: say so in the game's words, close
            await transport.send_all(my_error_line(why)); await transport.aclose(); return
        decoder = MyDecoder()                    # the game's sans-I/O decoder (protocol/)
        reader = FrameReader(transport, decoder, limits, gate.budget)
        outbox = Outbox(transport, limits.outbox_messages, render=my_render, on_full=kill)
        try:
            ...  # a nursery: outbox.run() writes; a loop takes frames out of the decoder,
                 # calling ``await reader.fill()`` when it needs data (may raise OverBudget)
                 # and ``await reader.frame_done()`` after each frame (yields now and then)
        finally:
            reader.release(); gate.leave(); await transport.aclose()

    port = await nursery.start(serve_tcp, handle)      # 127.0.0.1, a free port

The public API (stable; other games' servers depend on it):

- :class:`Limits` (frozen; :data:`DEFAULT_LIMITS`, ``replace``): every limit, documented with
  its default in docs/server.md. :class:`InputBudget`: the server-wide count of buffered input.
  :class:`Gate`: admits a connection or says why not (``enter``/``leave``).
  :class:`OverBudget`: a connection passed a budget (``.budget`` names which).
- :class:`Transport`: a trio ``Stream`` read in chunks (``receive_some``), written whole
  (``send_all``) or without waiting (``write_now`` when ``writes_now``), closed after a linger
  (``linger``, ``aclose``); the socket descriptor fast path is inside it.
- :class:`FrameReader`: feeds a :class:`Decoder` (anything with ``receive_data`` and
  ``buffered_bytes``) within the budgets and the input rate, and yields between frames.
- :class:`Outbox`: a bounded outbox with its writer task (``deliver`` never waits; ``run`` is
  the writer; :data:`CLOSE` closes after what came before).
- :func:`open_listeners`, :func:`serve_tcp`: listen (127.0.0.1, port 0 ok) and serve, taking
  ``task_status``.

May import trio and the standard library only: never a game, the command line or the client.
"""

from server.net.limits import DEFAULT_LIMITS, Gate, InputBudget, Limits, OverBudget
from server.net.listen import open_listeners, serve_tcp
from server.net.outbox import CLOSE, Close, Outbox
from server.net.reader import Decoder, FrameReader
from server.net.transport import Transport

__all__ = [
    "CLOSE",
    "DEFAULT_LIMITS",
    "Close",
    "Decoder",
    "FrameReader",
    "Gate",
    "InputBudget",
    "Limits",
    "Outbox",
    "OverBudget",
    "Transport",
    "open_listeners",
    "serve_tcp",
]
