"""Codec throughput, each way, for the messages a match sends most: ``move`` and ``moved``.

Target (issue 2): >= 100k messages/s each way. Each row is the median of several runs of a
batch of messages. "one per read" feeds each line with its own ``receive_data`` call (a socket
that delivers lines one by one: the worst case); "64 KiB reads" feeds the batch in 64 KiB chunks.
``send`` includes the outgoing check against the peer's rules.
"""

from __future__ import annotations

from collections.abc import Callable

from bench.common import median_seconds, print_table
from protocol.codec import NEED_DATA, Codec
from protocol.messages import ClientMessage, Message, Move, Moved, ServerMessage

BATCH = 10_000
REPEAT = 9
CHUNK = 65536


def _encode_run(accept: object, messages: list[Message]) -> Callable[[], object]:
    codec = Codec(accept=accept)

    def run() -> object:
        send = codec.send
        return [send(message) for message in messages]

    return run


def _decode_run(accept: object, lines: list[bytes], *, per_line: bool) -> Callable[[], object]:
    stream = b"".join(lines)
    chunks = lines if per_line else [stream[i : i + CHUNK] for i in range(0, len(stream), CHUNK)]

    def run() -> object:
        codec = Codec(accept=accept)
        count = 0
        for chunk in chunks:
            codec.receive_data(chunk)
            while codec.next_message() is not NEED_DATA:
                count += 1
        assert count == len(lines)
        return count

    return run


def main() -> None:
    moves: list[Message] = [Move(to=i % 1000) for i in range(BATCH)]
    moveds: list[Message] = [
        Moved(
            success=i % 3 != 0,
            location=i % 1000,
            killed=[i % 6] if i % 7 == 0 else [],
            reason="crossed" if i % 3 else "trap",
        )
        for i in range(BATCH)
    ]
    server, client = Codec(accept=ClientMessage), Codec(accept=ServerMessage)
    move_lines = [client.send(m) for m in moves]
    moved_lines = [server.send(m) for m in moveds]
    cases: list[tuple[str, str, str, Callable[[], object]]] = [
        ("client -> server", "move", "send", _encode_run(ServerMessage, moves)),
        (
            "client -> server",
            "move",
            "decode, one per read",
            _decode_run(ClientMessage, move_lines, per_line=True),
        ),
        (
            "client -> server",
            "move",
            "decode, 64 KiB reads",
            _decode_run(ClientMessage, move_lines, per_line=False),
        ),
        ("server -> client", "moved", "send", _encode_run(ClientMessage, moveds)),
        (
            "server -> client",
            "moved",
            "decode, one per read",
            _decode_run(ServerMessage, moved_lines, per_line=True),
        ),
        (
            "server -> client",
            "moved",
            "decode, 64 KiB reads",
            _decode_run(ServerMessage, moved_lines, per_line=False),
        ),
    ]
    rows = []
    for direction, kind, operation, run in cases:
        seconds = median_seconds(run, repeat=REPEAT, warmup=1)
        rate = BATCH / seconds
        verdict = "ok" if rate >= 100_000 else "BELOW TARGET"
        rows.append((direction, kind, operation, f"{rate:,.0f}", f"{1e6 / rate:.2f}", verdict))
    print_table(
        f"codec throughput (median of {REPEAT} runs of {BATCH:,} messages; target 100,000/s)",
        ["direction", "message", "operation", "messages/s", "µs/message", "target"],
        rows,
    )


if __name__ == "__main__":
    main()
