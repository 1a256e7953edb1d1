"""The shared trio network layer every game's server is built on (nothing game-specific here).

Every game's server uses it through the one connection cycle, :class:`server.cycle.Link`
(admit or refuse, read within the limits, the bounded outbox, linger, close), which is built on
these parts::

    limits = DEFAULT_LIMITS.replace(idle_seconds=600)
    gate = Gate(limits)                          # the connection cap and the input budget
    transport = Transport(stream, receive_bytes=limits.receive_bytes)
    reader = FrameReader(transport, decoder, limits, gate.budget)  # decoder: protocol/
    outbox = Outbox(transport, limits.outbox_messages, render=my_render, on_full=kill)

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
