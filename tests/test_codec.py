"""The sans-I/O JSON Lines codec (protocol.codec), read as the wire protocol of spec section 4.

Every input is also fed one byte at a time: the codec must not care how the socket chunks it.
Malformed input is table-driven: each row is one way a peer can get a line wrong, with the
error cause it must produce and whether the spec wants the socket closed. Hypothesis feeds
arbitrary bytes and arbitrary JSON objects to check that nothing but RemoteProtocolError ever
comes out of next_message.
"""

from __future__ import annotations

import gc
import itertools
import json
from collections.abc import Iterable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.codec import (
    MAX_LINE,
    NEED_DATA,
    Codec,
    ErrorCause,
    LocalProtocolError,
    RemoteProtocolError,
)
from protocol.encoding import encode, encode_lines
from protocol.errors import ErrorCode
from protocol.messages import (
    MESSAGE_TYPES,
    ClientMessage,
    Dungeon,
    Enemy,
    Error,
    GameOver,
    Message,
    Move,
    Moved,
    Sat,
    ServerMessage,
    Solution,
    Start,
)

# Each kind with the exact line the spec says goes on the wire (written by hand from the spec).
CLIENT_EXAMPLES: list[tuple[Message, bytes]] = [
    (Start(0, 0), b'{"type":"start","team":0,"agent":0}'),
    (Start(1, 5, "finals_2-b"), b'{"type":"start","team":1,"agent":5,"match":"finals_2-b"}'),
    (Move(412), b'{"type":"move","to":412}'),
    (Solution([True, False, True]), b'{"type":"solution","assignment":[true,false,true]}'),
]
SERVER_EXAMPLES: list[tuple[Message, bytes]] = [
    (
        Dungeon(1, 3, [[0.25, 0.5], [0.75, 1.0]], [[0, 1]], [0, 1], [1, 0]),
        b'{"type":"dungeon","team":1,"agent":3,"nodes":[[0.25,0.5],[0.75,1.0]],'
        b'"edges":[[0,1]],"start":[0,1],"shrine":[1,0]}',
    ),
    (
        Sat(7, 3, [[1, -2, 3], [-1, 2, -3]]),
        b'{"type":"sat","to":7,"switches":3,"traps":[[1,-2,3],[-1,2,-3]]}',
    ),
    (
        Moved(True, 7, [2, -1], "crossed"),
        b'{"type":"moved","success":true,"location":7,"killed":[2,-1],"reason":"crossed"}',
    ),
    (
        Moved(False, 0, [], "attacked"),
        b'{"type":"moved","success":false,"location":0,"killed":[],"reason":"attacked"}',
    ),
    (Enemy(9, -1, False), b'{"type":"enemy","location":9,"agent":-1,"seen":false}'),
    (GameOver(1), b'{"type":"game_over","winner":1}'),
    (GameOver(None), b'{"type":"game_over","winner":null}'),
    (
        Error("not_adjacent", "move: not adjacent"),
        b'{"type":"error","code":"not_adjacent","message":"move: not adjacent"}',
    ),
]


def drain(codec: Codec) -> list[Message]:
    """Every message the codec can hand out now (it must not raise)."""
    out = []
    while (message := codec.next_message()) is not NEED_DATA:
        out.append(message)
    return out


def feed_and_collect(codec: Codec, chunks: Iterable[bytes]) -> list[Message | ErrorCause]:
    """Feed the chunks, then EOF; return messages and error causes in the order they came."""
    return feed_and_collect_open(codec, [*chunks, b""])


def feed_and_collect_open(codec: Codec, chunks: Iterable[bytes]) -> list[Message | ErrorCause]:
    """Feed the chunks (no EOF added); return messages and error causes in order."""
    out: list[Message | ErrorCause] = []
    for chunk in chunks:
        codec.receive_data(chunk)
        while True:
            try:
                message = codec.next_message()
            except RemoteProtocolError as error:
                out.append(error.cause)
                continue
            if message is NEED_DATA:
                break
            out.append(message)
    return out


def one_byte_at_a_time(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


# --- the happy path -----------------------------------------------------------------------------


@pytest.mark.parametrize(("message", "line"), CLIENT_EXAMPLES + SERVER_EXAMPLES)
def test_encode_writes_the_spec_line(message: Message, line: bytes):
    """Each message kind is encoded as exactly the spec's JSON object plus a newline."""
    assert encode(message) == line + b"\n"


@pytest.mark.parametrize(
    ("accept", "examples"), [(ClientMessage, CLIENT_EXAMPLES), (ServerMessage, SERVER_EXAMPLES)]
)
@pytest.mark.parametrize("chunking", ["whole", "one_byte"])
def test_every_kind_round_trips(accept: object, examples: list[tuple[Message, bytes]], chunking):
    """Every kind a side accepts decodes back to the message, however the bytes are chunked."""
    stream = b"".join(line + b"\n" for _, line in examples)
    chunks = [stream] if chunking == "whole" else one_byte_at_a_time(stream)
    assert feed_and_collect(Codec(accept=accept), chunks) == [m for m, _ in examples]


def test_send_is_encode_for_our_direction():
    """A server's codec sends server messages, a client's sends client messages, as encode does."""
    server, client = Codec(accept=ClientMessage), Codec(accept=ServerMessage)
    for message, line in SERVER_EXAMPLES:
        assert server.send(message) == line + b"\n"
    for message, line in CLIENT_EXAMPLES:
        assert client.send(message) == line + b"\n"


@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        pytest.param(b'{"type":"move","to":1}\r\n', [Move(1)], id="crlf"),
        pytest.param(b'\n\r\n  \n{"type":"move","to":1}\n\n', [Move(1)], id="blank-lines"),
        pytest.param(b' {"type" : "move", "to" : 1 } \n', [Move(1)], id="whitespace"),
        pytest.param(b'{"to":1,"type":"move"}\n', [Move(1)], id="type-last"),
        pytest.param(b'{"type":"move","to":1,"why":[1,{"a":null}]}\n', [Move(1)], id="unknown"),
        pytest.param(
            b'{"type":"start","team":1,"agent":0,"match":null}\n', [Start(1, 0)], id="match-null"
        ),
        pytest.param(
            b'{"type":"move","to":1}\n{"type":"move","to":2}\n', [Move(1), Move(2)], id="two-lines"
        ),
        # JSON allows a lone surrogate escape in a string (RFC 8259 8.2); msgspec alone does not.
        pytest.param(
            b'{"type":"move","to":1,"x":"\\ud800"}\n', [Move(1)], id="lone-surrogate-unknown-field"
        ),
    ],
)
def test_lenient_but_valid_lines_are_accepted(stream: bytes, expected: list[Message]):
    """CRLF endings, blank lines, JSON whitespace, field order and unknown fields are all fine."""
    for chunks in ([stream], one_byte_at_a_time(stream)):
        assert feed_and_collect(Codec(accept=ClientMessage), chunks) == expected


def test_start_without_match_omits_the_field_and_draw_sends_null():
    """An unnamed start has no "match" key; a draw's game_over carries "winner": null."""
    assert json.loads(encode(Start(0, 1))) == {"type": "start", "team": 0, "agent": 1}
    assert json.loads(encode(GameOver(None))) == {"type": "game_over", "winner": None}


# --- malformed lines ----------------------------------------------------------------------------

MALFORMED = [
    # (line sent to a server, cause, fatal, field)
    pytest.param(b"hello", ErrorCause.NOT_JSON, True, None, id="not-json"),
    pytest.param(b'{"type":"move","to":1', ErrorCause.NOT_JSON, True, None, id="truncated"),
    pytest.param(b'{"type":"move","to":1}}', ErrorCause.NOT_JSON, True, None, id="trailing"),
    pytest.param(b'{"type":"move","to":NaN}', ErrorCause.NOT_JSON, True, None, id="nan"),
    pytest.param(
        b'{"type":"move","to":1,"x":"\xff"}', ErrorCause.NOT_JSON, True, None, id="invalid-utf8"
    ),
    pytest.param(b"[" * 100_000, ErrorCause.NOT_JSON, True, None, id="deep-unterminated"),
    pytest.param(
        b'{"type":"move","to":1,"x":' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        ErrorCause.NOT_JSON,
        True,
        None,
        id="deep-nesting",
    ),
    pytest.param(
        b'{"type":"move","to":1,"x":"\\ud800}', ErrorCause.NOT_JSON, True, None, id="surrogate-cut"
    ),
    pytest.param(b"[1,2]", ErrorCause.NOT_AN_OBJECT, False, None, id="array"),
    pytest.param(b'"move"', ErrorCause.NOT_AN_OBJECT, False, None, id="string"),
    pytest.param(b"null", ErrorCause.NOT_AN_OBJECT, False, None, id="null"),
    pytest.param(b"1e400", ErrorCause.NOT_AN_OBJECT, False, None, id="huge-number"),
    pytest.param(b'{"to":1}', ErrorCause.MISSING_TYPE, False, "type", id="no-type"),
    pytest.param(b'{"type":"jump"}', ErrorCause.UNKNOWN_TYPE, False, None, id="unknown-type"),
    pytest.param(b'{"type":"moved"}', ErrorCause.UNKNOWN_TYPE, False, None, id="server-kind"),
    pytest.param(b'{"type":3,"to":1}', ErrorCause.UNKNOWN_TYPE, False, "type", id="type-int"),
    pytest.param(b'{"type":"move"}', ErrorCause.MISSING_FIELD, False, "to", id="no-to"),
    pytest.param(
        b'{"type":"start","agent":0}', ErrorCause.MISSING_FIELD, False, "team", id="no-team"
    ),
    pytest.param(b'{"type":"move","to":"3"}', ErrorCause.BAD_FIELD, False, "to", id="to-str"),
    pytest.param(b'{"type":"move","to":1.0}', ErrorCause.BAD_FIELD, False, "to", id="to-float"),
    pytest.param(b'{"type":"move","to":true}', ErrorCause.BAD_FIELD, False, "to", id="to-bool"),
    pytest.param(b'{"type":"move","to":null}', ErrorCause.BAD_FIELD, False, "to", id="to-null"),
    pytest.param(b'{"type":"move","to":-1}', ErrorCause.BAD_FIELD, False, "to", id="to-negative"),
    pytest.param(b'{"type":"move","to":1e400}', ErrorCause.BAD_FIELD, False, "to", id="to-inf"),
    pytest.param(
        b'{"type":"start","team":2,"agent":0}', ErrorCause.BAD_FIELD, False, "team", id="team-2"
    ),
    pytest.param(
        b'{"type":"start","team":0,"agent":6}', ErrorCause.BAD_FIELD, False, "agent", id="agent-6"
    ),
    pytest.param(
        b'{"type":"start","team":0,"agent":0,"match":""}',
        ErrorCause.BAD_FIELD,
        False,
        "match",
        id="match-empty",
    ),
    pytest.param(
        b'{"type":"start","team":0,"agent":0,"match":"a b"}',
        ErrorCause.BAD_FIELD,
        False,
        "match",
        id="match-space",
    ),
    pytest.param(
        b'{"type":"start","team":0,"agent":0,"match":"' + b"m" * 65 + b'"}',
        ErrorCause.BAD_FIELD,
        False,
        "match",
        id="match-65",
    ),
    pytest.param(
        b'{"type":"start","team":0,"agent":0,"match":"abc\\n"}',
        ErrorCause.BAD_FIELD,
        False,
        "match",
        id="match-newline",
    ),
    pytest.param(
        b'{"type":"start","team":0,"agent":0,"match":"a\\udc00"}',
        ErrorCause.BAD_FIELD,
        False,
        "match",
        id="match-lone-surrogate",
    ),
    pytest.param(
        b'{"type":"solution","assignment":[true,1]}',
        ErrorCause.BAD_FIELD,
        False,
        "assignment",
        id="assignment-int",
    ),
    pytest.param(
        b'{"type":"solution","assignment":true}',
        ErrorCause.BAD_FIELD,
        False,
        "assignment",
        id="assignment-bool",
    ),
]


@pytest.mark.parametrize(("line", "cause", "fatal", "field"), MALFORMED)
@pytest.mark.parametrize("chunking", ["whole", "one_byte"])
def test_malformed_line_raises_the_typed_error(line, cause, fatal, field, chunking):
    """A bad line raises RemoteProtocolError with its cause, blame flag and field, then moves on."""
    stream = line + b'\n{"type":"move","to":5}\n'
    codec = Codec(accept=ClientMessage)
    if chunking == "whole":
        codec.receive_data(stream)
    else:
        for byte in one_byte_at_a_time(stream):
            codec.receive_data(byte)
    with pytest.raises(RemoteProtocolError) as caught:
        codec.next_message()
    assert (caught.value.cause, caught.value.fatal, caught.value.field) == (cause, fatal, field)
    assert codec.next_message() == Move(5), "the line after an error still decodes"
    assert codec.next_message() is NEED_DATA


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b'{"type":"move","to":"3"}', "move: field 'to' must be an int >= 0, got str \"3\""),
        (b'{"type":"start","team":7,"agent":0}', "start: field 'team' must be 0 or 1, got int 7"),
        (b'{"type":"move"}', "move: field 'to' is missing"),
        (b'{"type":"jump"}', "unknown message type 'jump'; expected one of start, move, solution"),
    ],
)
def test_error_text_names_the_field_and_what_came(line: bytes, expected: str):
    """The error text says which field is wrong, what it must be and what the peer sent."""
    codec = Codec(accept=ClientMessage)
    codec.receive_data(line + b"\n")
    with pytest.raises(RemoteProtocolError, match="^" + expected.replace("(", r"\(") + "$"):
        codec.next_message()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(b"a\\ud800b", "a\ufffdb", id="lone-high"),
        pytest.param(b"\\ud83d\\ude00\\udc00", "\U0001f600\ufffd", id="pair-then-lone-low"),
        pytest.param(b"\\\\ud800\\ud800", "\\ud800\ufffd", id="escaped-backslash-then-lone"),
    ],
)
def test_a_lone_surrogate_reads_as_the_replacement_character(text: bytes, expected: str):
    """A lone surrogate escape decodes as U+FFFD; pairs and escaped backslashes stay as they are."""
    line = b'{"type":"error","code":"x","message":"' + text + b'"}\n'
    for chunks in ([line], one_byte_at_a_time(line)):
        assert feed_and_collect(Codec(accept=ServerMessage), chunks) == [Error("x", expected)]


def test_a_client_refuses_server_fields_out_of_range():
    """A client's codec applies the server messages' rules (here: reason and killed)."""
    codec = Codec(accept=ServerMessage)
    codec.receive_data(
        b'{"type":"moved","success":true,"location":1,"killed":[],"reason":"flew"}\n'
        b'{"type":"moved","success":true,"location":1,"killed":[6],"reason":"trap"}\n'
        b'{"type":"game_over"}\n'
    )
    fields = []
    for _ in range(3):
        with pytest.raises(RemoteProtocolError) as caught:
            codec.next_message()
        fields.append((caught.value.cause, caught.value.field))
    assert fields == [
        (ErrorCause.BAD_FIELD, "reason"),
        (ErrorCause.BAD_FIELD, "killed"),
        (ErrorCause.MISSING_FIELD, "winner"),
    ]


# --- line length ----------------------------------------------------------------------------

SMALL = 64  # a small max_line keeps these tests fast; one test below uses the real 1 MiB


def line_of(size: int) -> bytes:
    """A valid move line of exactly ``size`` bytes (padded with an unknown field)."""
    head = b'{"type":"move","to":1,"pad":"'
    return head + b"p" * (size - len(head) - 2) + b'"}'


@pytest.mark.parametrize(
    ("line", "too_long"),
    [
        pytest.param(line_of(SMALL), False, id="at-limit"),
        pytest.param(line_of(SMALL) + b"\r", False, id="at-limit-crlf"),
        pytest.param(line_of(SMALL + 1), True, id="one-over"),
        pytest.param(line_of(SMALL + 1) + b"\r", True, id="one-over-crlf"),
    ],
)
def test_line_limit_excludes_the_newline(line: bytes, too_long: bool):
    """A line of max_line bytes passes, not counting "\\n" or "\\r\\n"; one more byte is fatal."""
    for chunks in ([line + b"\n"], one_byte_at_a_time(line + b"\n")):
        out = feed_and_collect(Codec(accept=ClientMessage, max_line=SMALL), chunks)
        assert out == ([ErrorCause.LINE_TOO_LONG] if too_long else [Move(1)])


def test_over_long_line_is_refused_before_its_end_arrives():
    """Past the limit without a newline, the error comes at once and nothing more is buffered."""
    codec = Codec(accept=ClientMessage, max_line=SMALL)
    codec.receive_data(b"x" * SMALL)
    assert codec.next_message() is NEED_DATA
    codec.receive_data(b"xx")
    with pytest.raises(RemoteProtocolError) as caught:
        codec.next_message()
    assert caught.value.cause is ErrorCause.LINE_TOO_LONG
    assert caught.value.fatal
    codec.receive_data(b"x" * 10 * SMALL)
    assert codec.buffered_bytes == 0
    assert codec.next_message() is NEED_DATA, "one error per over-long line"
    codec.receive_data(b'xx\n{"type":"move","to":2}\n')
    assert drain(codec) == [Move(2)], "the codec resynchronises at the next newline"


def test_default_limit_is_one_mebibyte_and_is_never_overrun():
    """With the default limit, 2 MiB without a newline keep at most 1 MiB + 1 byte buffered."""
    assert MAX_LINE == 1024 * 1024
    codec = Codec(accept=ClientMessage)
    out = []
    for _ in range(32):
        out += feed_and_collect_open(codec, [b"y" * 65536])
        assert codec.buffered_bytes <= MAX_LINE + 1
    assert out == [ErrorCause.LINE_TOO_LONG]
    codec.receive_data(b"\n" + line_of(MAX_LINE) + b"\n")
    assert drain(codec) == [Move(1)], "a line of exactly 1 MiB is accepted"


# --- end of stream --------------------------------------------------------------------------


def test_eof_in_the_middle_of_a_line_is_a_fatal_incomplete_line():
    """Lines before the end come out; a cut-off last line is an incomplete_line error."""
    stream = b'{"type":"move","to":1}\n{"type":"move","to"'
    out = feed_and_collect(Codec(accept=ClientMessage), one_byte_at_a_time(stream))
    assert out == [Move(1), ErrorCause.INCOMPLETE_LINE]


def test_eof_after_a_blank_partial_line_is_quiet():
    """Trailing whitespace without a newline at the end of the stream is not an error."""
    out = feed_and_collect(Codec(accept=ClientMessage), [b'{"type":"move","to":1}\n \r'])
    assert out == [Move(1)]


@pytest.mark.parametrize("split_at", [None, 1, 44])
def test_a_blank_line_over_the_limit_is_too_long_in_any_chunking(split_at: int | None) -> None:
    """Found by fuzzing: a whitespace line longer than the limit is line_too_long whether it
    comes in one chunk or several (a chunk holding it whole skipped it as blank)."""
    blank = b" " * 45 + b"\n"
    chunks = [blank] if split_at is None else [blank[:split_at], blank[split_at:]]
    out = feed_and_collect(
        Codec(accept=ClientMessage, max_line=40), [*chunks, b'{"type":"move","to":1}\n']
    )
    assert out == [ErrorCause.LINE_TOO_LONG, Move(1)]


def test_after_eof_there_is_only_need_data_and_feeding_more_is_misuse():
    """After b"" the codec reports eof, returns NEED_DATA, and refuses further data."""
    codec = Codec(accept=ClientMessage)
    codec.receive_data(b"")
    assert codec.eof
    assert codec.next_message() is NEED_DATA
    with pytest.raises(LocalProtocolError) as caught:
        codec.receive_data(b"{}\n")
    assert caught.value.cause == ErrorCause.DATA_AFTER_EOF  # the framing base's cause word


# --- our own misuse -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "cause", "field"),
    [
        pytest.param(Move(3), ErrorCause.NOT_A_MESSAGE, None, id="wrong-direction"),
        pytest.param({"type": "error"}, ErrorCause.NOT_A_MESSAGE, None, id="dict"),
        pytest.param(Enemy(1, 7, True), ErrorCause.BAD_FIELD, "agent", id="agent-7"),
        pytest.param(Moved(True, 1, [], "flew"), ErrorCause.BAD_FIELD, "reason", id="reason"),
        pytest.param(
            Moved(True, np.int64(1), [], "trap"), ErrorCause.BAD_FIELD, "location", id="numpy-int"
        ),
        pytest.param(Moved(1, 1, [], "trap"), ErrorCause.BAD_FIELD, "success", id="int-as-bool"),
        pytest.param(
            Dungeon(0, 0, [[float("nan"), 0.0]], [], [0, 1], [1, 0]),
            ErrorCause.BAD_FIELD,
            "nodes",
            id="nan",
        ),
        pytest.param(Sat(1, 3, [[1, 2]]), ErrorCause.BAD_FIELD, "traps", id="short-trap"),
        # The codec's quick `sat` check must refuse whatever the full one refuses.
        pytest.param(Sat(1, 3, [[1, 2, 3, 4]]), ErrorCause.BAD_FIELD, "traps", id="long-trap"),
        pytest.param(
            Sat(1, 3, [[1, 2, 3], [1.5, 2, 3]]), ErrorCause.BAD_FIELD, "traps", id="float"
        ),
        pytest.param(Sat(1, 3, [[1, True, 3]]), ErrorCause.BAD_FIELD, "traps", id="bool-literal"),
        pytest.param(Sat(1, 3, [[1, 2, 3], [[1], 2, 3]]), ErrorCause.BAD_FIELD, "traps", id="nest"),
        pytest.param(Sat(1, 0, [[1, 2, 3]]), ErrorCause.BAD_FIELD, "switches", id="no-switches"),
        pytest.param(Sat(-1, 3, [[1, 2, 3]]), ErrorCause.BAD_FIELD, "to", id="negative-to"),
        pytest.param(GameOver(2), ErrorCause.BAD_FIELD, "winner", id="winner-2"),
    ],
)
def test_sending_an_invalid_message_is_local_misuse(message, cause: ErrorCause, field):
    """send() refuses what the peer would refuse, as LocalProtocolError naming the field."""
    with pytest.raises(LocalProtocolError) as caught:
        Codec(accept=ClientMessage).send(message)
    assert (caught.value.cause, caught.value.field) == (cause, field)


@pytest.mark.parametrize(
    "kwargs",
    [{"accept": int}, {"accept": Move | int}, {"accept": ClientMessage, "max_line": 0}],
)
def test_building_a_codec_wrongly_is_local_misuse(kwargs):
    """accept must name message classes and max_line must be positive."""
    with pytest.raises(LocalProtocolError) as caught:
        Codec(**kwargs)
    assert caught.value.cause is ErrorCause.BAD_ARGUMENT


# --- properties -----------------------------------------------------------------------------

nodes = st.integers(0, 10**6)
coordinates = st.floats(allow_nan=False, allow_infinity=False)
client_messages = st.one_of(
    st.builds(
        Start,
        st.integers(0, 1),
        st.integers(0, 5),
        st.none() | st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True),
    ),
    st.builds(Move, nodes),
    st.builds(Solution, st.lists(st.booleans(), max_size=30)),
)
server_messages = st.one_of(
    st.builds(
        Dungeon,
        st.integers(0, 1),
        st.integers(0, 5),
        st.lists(st.tuples(coordinates, coordinates), max_size=20),
        st.lists(st.tuples(nodes, nodes), max_size=20),
        st.tuples(nodes, nodes),
        st.tuples(nodes, nodes),
    ),
    st.builds(
        Sat,
        nodes,
        st.integers(1, 50),
        st.lists(st.tuples(*[st.integers(-50, 50)] * 3), max_size=20),
    ),
    st.builds(
        Moved,
        st.booleans(),
        nodes,
        st.lists(st.integers(-1, 5), max_size=6),
        st.sampled_from(["crossed", "trap", "attacked"]),
    ),
    st.builds(Enemy, nodes, st.integers(-1, 5), st.booleans()),
    st.builds(GameOver, st.none() | st.integers(0, 1)),
    st.builds(Error, st.sampled_from([c.value for c in ErrorCode]), st.text(max_size=50)),
)


def random_chunks(data: st.DataObject, stream: bytes) -> list[bytes]:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    bounds = [0, *cuts, len(stream)]
    # Empty chunks are left out: b"" means the end of the stream.
    return [stream[a:b] for a, b in itertools.pairwise(bounds) if a < b]


@given(st.data(), st.lists(client_messages, max_size=10), st.lists(server_messages, max_size=10))
def test_random_messages_in_random_chunks_round_trip(data, to_server, to_client):
    """Any valid messages, sent and fed back in any chunking, decode to themselves."""
    client_stream = b"".join(Codec(accept=ServerMessage).send(m) for m in to_server)
    server_stream = b"".join(Codec(accept=ClientMessage).send(m) for m in to_client)
    assert (
        feed_and_collect(Codec(accept=ClientMessage), random_chunks(data, client_stream))
        == to_server
    )
    assert (
        feed_and_collect(Codec(accept=ServerMessage), random_chunks(data, server_stream))
        == to_client
    )


TOKENS = [
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b":",
    b",",
    b"\\",
    b"\n",
    b"\r",
    b" ",
    b'"type"',
    b'"move"',
    b'"to"',
    b'"start"',
    b'"moved"',
    b'"team"',
    b"1",
    b"-1",
    b"1.0",
    b"1e400",
    b"99999999999999999999999",
    b"true",
    b"null",
    b"NaN",
    b"\xff",
    b"\xc3\xa9",
    b"\x00",
    b'"\\ud800"',
    b'"\\u00e9"',
]
noise = st.lists(st.sampled_from(TOKENS) | st.binary(max_size=8), max_size=60).map(b"".join)


@given(
    st.data(),
    noise,
    st.sampled_from([ClientMessage, ServerMessage]),
    st.sampled_from([16, MAX_LINE]),
)
def test_arbitrary_bytes_raise_only_remote_protocol_errors(data, stream, accept, max_line):
    """Whatever the bytes, next_message returns messages, NEED_DATA or RemoteProtocolError."""
    out = feed_and_collect(Codec(accept=accept, max_line=max_line), random_chunks(data, stream))
    assert all(isinstance(item, (ErrorCause, *MESSAGE_TYPES)) for item in out)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | coordinates
    | st.text(max_size=5)
    # Lone surrogates: json.dumps escapes them ("\\ud800"), which JSON allows and msgspec does not.
    | st.text(st.characters(categories=["Cs", "L"]), max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
tags = st.sampled_from(
    ["start", "move", "solution", "dungeon", "sat", "moved", "enemy", "game_over", "error", "nope"]
)
field_names = st.sampled_from(
    [
        "team",
        "agent",
        "match",
        "to",
        "assignment",
        "nodes",
        "edges",
        "start",
        "shrine",
        "switches",
        "traps",
        "success",
        "location",
        "killed",
        "reason",
        "seen",
        "winner",
        "message",
        "other",
    ]
)


@given(
    tags,
    st.dictionaries(field_names, json_values, max_size=6),
    st.sampled_from([ClientMessage, ServerMessage]),
)
def test_any_json_object_is_a_message_or_a_non_fatal_error(tag, fields, accept):
    """A JSON object line never closes the socket: it decodes, or raises a non-fatal error."""
    line = json.dumps({"type": tag, **fields}).encode() + b"\n"
    [result] = feed_and_collect(Codec(accept=accept), [line])
    if isinstance(result, ErrorCause):
        assert result in {ErrorCause.UNKNOWN_TYPE, ErrorCause.MISSING_FIELD, ErrorCause.BAD_FIELD}
    else:
        assert isinstance(result, accept.__args__)
        assert type(result).__struct_config__.tag == tag


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b'{"type":"move","to":"a"}\n', id="bad-field"),
        pytest.param(b"not json\n", id="not-json"),
        pytest.param(b"\xff\xfe\n", id="not-utf8"),
        pytest.param(b'{"type":"nope"}\n', id="unknown-type"),
        pytest.param(b'{"type":"move","to":"\\ud800"}\n', id="lone-surrogate"),
        pytest.param(b"x" * (SMALL + 1) + b"\n", id="too-long"),
        pytest.param(b"x", id="incomplete"),
    ],
)
def test_a_refused_line_leaves_no_reference_cycle(data: bytes):
    """The errors a peer's garbage raises are freed by reference counting alone: the server
    runs with no automatic cycle collection, so a cycle per bad line would pile up."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for attempt in range(21):
            if attempt == 1:
                gc.collect()  # what the first error sets up once (msgspec's caches) is not it
            codec = Codec(accept=ClientMessage, max_line=SMALL)
            codec.receive_data(data)
            if not data.endswith(b"\n"):
                codec.receive_data(b"")
            refused = 0
            try:
                codec.next_message()
            except RemoteProtocolError:
                refused += 1
            assert refused == 1
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def test_encode_lines_gives_each_message_the_bytes_encode_gives_it() -> None:
    """encode_lines shares work between a begin's twelve maps and repeated sightings, and
    changes no byte: each line is what encode gives that message."""
    from dungeon.config import RulesConfig
    from dungeon.engine import Match

    begin = Match(3, RulesConfig(nodes=150, radius=0.16)).begin()
    messages = [outbound.message for outbound in begin.messages]
    repeated = [*messages, Enemy(9, -1, False), Enemy(9, -1, False), GameOver(1)]
    assert encode_lines(repeated) == [encode(message) for message in repeated]
    assert sum(type(m) is Dungeon for m in messages) == 12


def test_an_unfinished_line_fed_to_a_fresh_codec_goes_on_where_it_stopped():
    """unfinished_line is what a codec holds of a line whose newline has not come; a socket
    handed to another process gives it to that process's codec, and no byte is lost."""
    before = Codec(ClientMessage)
    before.receive_data(b'{"type":"move","to":1}\n{"type":"mo')
    assert before.next_message() == Move(to=1)
    assert before.unfinished_line == b'{"type":"mo'
    after = Codec(ClientMessage)
    after.receive_data(before.unfinished_line)
    after.receive_data(b've","to":2}\n')
    assert after.next_message() == Move(to=2)
    assert after.unfinished_line == b""
