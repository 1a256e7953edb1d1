"""The Fish wire codec: JSON values out of bytes in any chunking; blame-typed errors."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.fish import NEED_DATA, LocalProtocolError, RemoteProtocolError, StreamCodec, encode

STREAM = (
    b'"void" ["start",[true]]\n["setup",[{"players":[],"board":[[1,2],[0,5]]}]]'
    b'[[0,0],[2,0]]"a \\" ] quote"\t{"k":"}{["}12 -3.5e2 null false'
)
VALUES = [
    "void",
    ["start", [True]],
    ["setup", [{"players": [], "board": [[1, 2], [0, 5]]}]],
    [[0, 0], [2, 0]],
    'a " ] quote',
    {"k": "}{["},
    12,
    -350.0,
    None,
    False,
]


def drain(codec: StreamCodec) -> list[object]:
    out = []
    while (value := codec.next_value()) is not NEED_DATA:
        out.append(value)
    return out


def feed(chunks: list[bytes], max_value: int = 1 << 20) -> list[object]:
    codec = StreamCodec(max_value)
    out: list[object] = []
    for chunk in chunks:
        if not chunk:
            continue  # a socket read is never empty before the end of the stream
        codec.receive_data(chunk)
        out += drain(codec)
    codec.receive_data(b"")
    out += drain(codec)
    assert codec.eof
    return out


def test_values_come_out_of_one_chunk() -> None:
    """A stream read at once yields every value, with or without whitespace between them."""
    assert feed([STREAM]) == VALUES


def test_values_come_out_one_byte_at_a_time() -> None:
    """Fed one byte at a time, the codec yields the same values, each as soon as it is whole."""
    codec = StreamCodec()
    seen = []
    for index in range(len(STREAM)):
        codec.receive_data(STREAM[index : index + 1])
        seen += drain(codec)
    codec.receive_data(b"")
    seen += drain(codec)
    assert seen == VALUES


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=30))
def test_values_come_out_of_random_chunks(cuts: list[int]) -> None:
    """Wherever the stream is cut, the values are the same."""
    points = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in itertools.pairwise(points)]
    assert feed(chunks) == VALUES


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(st.lists(json_values, max_size=6), st.data())
def test_any_values_round_trip_in_any_chunks(values: list[object], data: st.DataObject) -> None:
    """Values encoded back to back (bare scalars separated by a space) come back unchanged."""
    stream = b" ".join(encode(value) for value in values)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=10))
    points = [0, *sorted(cuts), len(stream)]
    assert feed([stream[a:b] for a, b in itertools.pairwise(points)]) == values


def feed_all(codec: StreamCodec, stream: bytes, size: int) -> None:
    for start in range(0, len(stream), size):
        codec.receive_data(stream[start : start + size])
        drain(codec)
    codec.receive_data(b"")
    drain(codec)


@pytest.mark.parametrize(
    ("stream", "cause"),
    [
        (b"@#!", "not_json"),
        (b"hello", "not_json"),
        (b"[1,2}", "not_json"),
        (b"[1,,2]", "not_json"),
        (b'"\xff\xfe"', "not_json"),
        (b'["setup",[{"pl', "truncated"),
        (b'"void', "truncated"),
        (b"[" * 50 + b"]" * 49, "truncated"),
        (b'"' + b"x" * 200 + b'"', "too_large"),
        (b"[" + b"1," * 100, "too_large"),
        (b"1" * 200, "too_large"),
        (b" " * 101, "too_large"),  # whitespace is input: it counts toward the next value
        (b'"a"' + b"\r\n\t " * 26 + b'"b"', "too_large"),
        # Python's json takes these; JSON does not, and they would reach the logs as lines
        # no JSON reader accepts (jq turns NaN into null, JSON.parse throws).
        (b"[NaN,0]", "not_json"),
        (b"[Infinity,0]", "not_json"),
        (b"[0,-Infinity]", "not_json"),
        (b"-Infinity", "not_json"),
        (b"[1e400,0]", "not_json"),
        (b"-1e400 ", "not_json"),
    ],
)
def test_bad_bytes_are_the_peers_fault(stream: bytes, cause: str) -> None:
    """Garbage, a stream cut inside a value, or a value over the budget is a RemoteProtocolError
    naming the cause, whatever the chunking."""
    for size in (1, 7, len(stream)):
        codec = StreamCodec(max_value=100)
        with pytest.raises(RemoteProtocolError) as caught:
            feed_all(codec, stream, size)
        assert caught.value.cause == cause


def test_an_oversized_value_is_refused_before_it_is_all_buffered() -> None:
    """A huge value is refused as soon as its unfinished part passes the budget."""
    codec = StreamCodec(max_value=1000)
    codec.receive_data(b'"' + b"x" * 1500)
    with pytest.raises(RemoteProtocolError, match="longer than 1000"):
        codec.next_value()


def test_an_error_is_final() -> None:
    """After a peer's error the codec raises it again: the player has failed for good."""
    codec = StreamCodec()
    codec.receive_data(b'@ "void"')
    with pytest.raises(RemoteProtocolError):
        codec.next_value()
    with pytest.raises(RemoteProtocolError):
        codec.next_value()


def test_whitespace_up_to_the_budget_between_values_is_accepted() -> None:
    """Up to ``max_value`` bytes of whitespace before each value, in any chunking."""
    stream = b" " * 100 + b"[1]" + b"\n" * 100 + b'"void"' + b" " * 100
    for size in (1, 7, 64, len(stream)):
        chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert feed(chunks, max_value=100) == [[1], "void"]


def test_whitespace_alone_is_no_value() -> None:
    """Blank space between or after values yields nothing and is no error at the end."""
    assert feed([b"  \n\r\t ", b'"void"\n\n', b"  "]) == ["void"]


def test_encoding_is_compact_and_refuses_what_json_cannot_carry() -> None:
    """We send compact JSON; a NaN or a set is our own bug, not the peer's."""
    assert encode(["take-turn", [{"a": 1}, []]]) == b'["take-turn",[{"a":1},[]]]'
    assert json.loads(encode("é")) == "é"
    with pytest.raises(LocalProtocolError):
        encode(float("nan"))
    with pytest.raises(LocalProtocolError):
        encode({1, 2})


def test_feeding_after_the_end_is_our_bug() -> None:
    codec = StreamCodec()
    codec.receive_data(b"")
    with pytest.raises(LocalProtocolError):
        codec.receive_data(b"[]")


def test_buffered_bytes_count_what_is_not_yet_a_value() -> None:
    """What the codec holds of an unfinished value is visible, for a server's memory budget."""
    codec = StreamCodec()
    codec.receive_data(b'"void" [1, 2')
    assert codec.next_value() == "void"
    assert codec.next_value() is NEED_DATA
    assert codec.buffered_bytes == len(b"[1, 2")  # the space before it is dropped
    codec.receive_data(b"]")
    assert codec.next_value() == [1, 2]
    assert codec.buffered_bytes == 0
