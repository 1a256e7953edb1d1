"""The match log file: what the writer puts on each line, and what the reader detects.

The log sits above the rules: these tests hand the writer the engine's own inputs, outputs and
typed events, made by hand; tests/test_replay.py runs real matches.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from dungeon.engine import AgentId, Disconnect, Outbound, Output, Request, TimeUp
from dungeon.events import Crossing, Kill
from protocol.messages import Error, Move, Moved
from replay.matchlog import (
    SCHEMA_VERSION,
    LogFormatError,
    LogWriteError,
    MatchLogWriter,
    UnsupportedSchemaError,
    input_record,
    output_records,
    parse_log,
    read_log,
    seal,
)


def make_output(messages: list[Outbound] | None = None, events: list[Any] | None = None) -> Output:
    """An engine ``Output`` (the writer takes the engine's own types)."""
    return Output(messages or [], events or [])


class FakeClock:
    """A clock that advances a quarter second per reading."""

    def __init__(self, start: float = 100.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def write_sample(stream: io.StringIO | io.BytesIO, *, close: bool = True) -> MatchLogWriter:
    """A small log: header, a move with its crossing and answer, an optimum, a disconnect, close."""
    writer = MatchLogWriter(stream, clock=FakeClock())
    writer.header(seed=42, config={"nodes": 1000}, version="9.9", match="m17", source="server")
    writer.input(Request(AgentId(0, 3), Move(to=17)))
    writer.output(
        make_output(
            messages=[Outbound(AgentId(0, 3), Moved(True, 17, [-1], "crossed"))],
            events=[
                Crossing(
                    crossing=0, agent=(0, 3), from_=5, to=17, active=2, roll=0.5, survived=True
                )
            ],
        )
    )
    writer.optimum(1, 0)
    writer.input(Disconnect(AgentId(1, 0)))
    writer.input(TimeUp())
    if close:
        writer.close(reason="game_over")
    return writer


def sample_lines(*, close: bool = True) -> list[str]:
    stream = io.StringIO()
    write_sample(stream, close=close)
    return stream.getvalue().splitlines(keepends=True)


def test_each_line_is_one_flushed_json_event_with_seq_t_and_hash() -> None:
    """Every line parses alone and carries seq = its line number, t from the header (one clock
    reading a line, but one for all the lines of an output), a hash."""
    lines = [json.loads(line) for line in sample_lines()]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert [line["t"] for line in lines] == [0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.25, 1.5]
    assert [line["event"] for line in lines] == [
        "header", "input", "crossing", "send", "optimum", "input", "input", "close",
    ]  # fmt: skip
    assert all(len(line["hash"]) == 64 for line in lines)


def test_header_records_what_a_replay_needs() -> None:
    """The header holds the schema version, seed, config, software version, name and source."""
    header = json.loads(sample_lines()[0])
    assert header["schema"] == SCHEMA_VERSION
    assert (header["seed"], header["config"], header["version"]) == (42, {"nodes": 1000}, "9.9")
    assert (header["match"], header["source"]) == ("m17", "server")


def test_inputs_and_outputs_are_written_as_plain_wire_data() -> None:
    """Requests keep their wire message; tuples become lists and sets sorted lists."""
    lines = [json.loads(line) for line in sample_lines()]
    assert lines[1] | {"hash": ""} == {
        "seq": 2, "t": 0.25, "event": "input", "kind": "request", "team": 0, "agent": 3,
        "message": {"type": "move", "to": 17}, "hash": "",
    }  # fmt: skip
    assert lines[2]["agent"] == [0, 3]
    assert (lines[2]["from"], lines[2]["active"]) == (5, 2)
    assert lines[3]["to"] == [0, 3]
    assert lines[3]["message"] == {
        "type": "moved", "success": True, "location": 17, "killed": [-1], "reason": "crossed",
    }  # fmt: skip
    assert (lines[5]["kind"], lines[5]["team"], lines[5]["agent"]) == ("disconnect", 1, 0)
    assert lines[6]["kind"] == "time_up"


def test_hash_chains_each_line_to_the_previous_one() -> None:
    """Each line ends with ,"hash":"h"} where h = sha256(previous h + the line without it)."""
    previous = ""
    for text in sample_lines():
        body, tail = text.rstrip("\n").split(',"hash":"')
        found = tail.removesuffix('"}')
        assert found == hashlib.sha256((previous + body + "}").encode()).hexdigest()
        assert json.loads(text)["hash"] == found
        previous = found


def test_a_binary_stream_gets_the_lines_a_text_stream_gets_in_utf8() -> None:
    """The server writes its logs to binary files: the very lines, UTF-8 encoded."""
    text, binary = io.StringIO(), io.BytesIO()
    for stream in (text, binary):
        writer = write_sample(stream, close=False)
        writer.output(make_output([Outbound(AgentId(1, 2), Error("bad_field", "café ✓"))]))
        writer.close(reason="over")
    assert binary.getvalue() == text.getvalue().encode("utf-8")
    assert '"message":"café ✓"' in text.getvalue()


class CountingStream(io.StringIO):
    """A text stream that counts its flushes."""

    flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def test_lines_are_flushed_as_written() -> None:
    """A reader sees each event as soon as the writer returns (the server may be killed next)."""

    stream = CountingStream()
    writer = write_sample(stream)
    assert stream.flushes == writer.lines_written == 8


def test_a_complete_log_reads_back_split_by_kind(tmp_path: Path) -> None:
    """read_log returns the header, inputs, outputs, optima and the close line of a good log."""
    path = tmp_path / "match.jsonl"
    path.write_text("".join(sample_lines()))
    log = read_log(path)
    assert log.complete
    assert log.bad is None
    assert log.seed == 42
    assert log.config == {"nodes": 1000}
    assert [line.line for line in log.inputs] == [2, 6, 7]
    assert [line.event for line in log.outputs] == ["crossing", "send"]
    assert [line.data["value"] for line in log.optima] == [0]
    assert log.close is not None
    assert log.close.data["reason"] == "game_over"


def swap(lines: list[str], i: int, j: int) -> list[str]:
    lines = list(lines)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


def edit(lines: list[str], i: int, old: str, new: str) -> list[str]:
    assert old in lines[i]
    return [*lines[:i], lines[i].replace(old, new), *lines[i + 1 :]]


TAMPERING = [
    # (what was done, the lines, the first bad line number, words of the reason)
    ("a value changed", edit(sample_lines(), 3, '"location":17', '"location":18'), 4, "hash"),
    ("a header field changed", edit(sample_lines(), 0, '"seed":42', '"seed":43'), 1, "hash"),
    ("a line removed", sample_lines()[:2] + sample_lines()[3:], 3, "hash"),
    ("two lines swapped", swap(sample_lines(), 4, 5), 5, "hash"),
    ("a line duplicated", [*sample_lines()[:3], *sample_lines()[2:]], 4, "hash"),
    ("a line that is not JSON", edit(sample_lines(), 5, "{", "{{"), 6, "not a JSON object"),
    ("an empty line", [*sample_lines()[:2], "\n", *sample_lines()[2:]], 3, "not a JSON"),
    ("a line appended", [*sample_lines(), sample_lines()[1]], 9, "after the close"),
    (
        "its hash cut off",
        [*sample_lines()[:4], sample_lines()[4].split(',"hash"')[0] + "}\n", *sample_lines()[5:]],
        5,
        "does not end with its hash",
    ),
    ("reformatted", edit(sample_lines(), 1, '"kind":', '"kind": '), 2, "hash does not chain"),
]


@pytest.mark.parametrize(
    ("lines", "line", "reason"),
    [case[1:] for case in TAMPERING],
    ids=[case[0] for case in TAMPERING],
)
def test_the_first_bad_line_is_named(lines: list[str], line: int, reason: str) -> None:
    """A changed, removed, reordered or garbled line is reported at the first line it breaks."""
    log = parse_log(lines)
    assert log.bad is not None
    assert log.bad.line == line
    assert reason in log.bad.reason
    assert not log.complete
    assert [event.line for event in log.events] == list(range(1, line))


def test_a_log_cut_short_reads_as_incomplete_not_tampered() -> None:
    """Lines missing from the end, or a last line cut mid-write, leave an incomplete log."""
    whole = sample_lines(close=False)
    log = parse_log(whole)
    assert (log.complete, log.bad, len(log.events)) == (False, None, 7)
    cut = [*whole[:-1], whole[-1][:30]]  # the writer died mid-line: no newline, not JSON
    log = parse_log(cut)
    assert (log.complete, log.bad, log.cut_short, len(log.events)) == (False, None, True, 6)


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ([], "empty file"),
        (['{"event": "input"}\n'], "not a match log header"),
        (["nonsense\n"], "not a match log header"),
    ],
)
def test_a_file_that_is_not_a_log_is_refused(lines: list[str], error: str) -> None:
    """A file without a header line is not a match log: the error names the file."""
    with pytest.raises(LogFormatError, match=error) as caught:
        parse_log(lines, "x.jsonl")
    assert "x.jsonl" in str(caught.value)


def test_another_schema_version_is_refused_with_both_versions_named() -> None:
    """A log of another schema is refused rather than misread."""
    lines = edit(sample_lines(), 0, f'"schema":{SCHEMA_VERSION}', '"schema":99')
    with pytest.raises(UnsupportedSchemaError, match=f"99.*version {SCHEMA_VERSION}"):
        parse_log(lines, "old.jsonl")


@pytest.mark.parametrize(
    ("misuse", "error"),
    [
        (lambda w: w.input(TimeUp()), "header before"),
        (lambda w: w.header(seed=1, config={}, version="v", match=None, source="x"), "source"),
        (
            lambda w: (
                w.header(seed=1, config={}, version="v", match=None, source="sim"),
                w.output(make_output(events=[{"event": "send"}])),
            ),
            "not an engine event",
        ),
        (
            lambda w: (
                w.header(seed=1, config={}, version="v", match=None, source="sim"),
                w.output(make_output(events=[{"event": "kill", "seq": 3}])),
            ),
            "not an engine event",
        ),
        (
            lambda w: (
                w.header(seed=1, config={}, version="v", match=None, source="sim"),
                w.output(make_output(events=[Kill(agent=object(), victim=(1, 2), location=3)])),
            ),
            "cannot write a object",
        ),
        (
            lambda w: (
                w.header(seed=1, config={}, version="v", match=None, source="sim"),
                w.close(reason="done"),
                w.optimum(1, 2),
            ),
            "closed",
        ),
        (lambda w: w.input("move 3"), "not an engine input"),
        # The request and output lines built straight to bytes check the same as the others.
        (lambda w: w.input(Request(AgentId(0, 1), Move(to=3))), "header before"),
        (
            lambda w: (
                w.header(seed=1, config={}, version="v", match=None, source="sim"),
                w.close(reason="done"),
                w.output(make_output(events=[Kill(agent=(0, 1), victim=(1, 2), location=3)])),
            ),
            "closed",
        ),
    ],
    ids=[
        "no header",
        "bad source",
        "a dict with a reserved kind",
        "a dict with a reserved key",
        "opaque value",
        "closed",
        "?",
        "request before the header",
        "output after the close",
    ],
)
def test_writer_misuse_is_our_error(misuse: Any, error: str) -> None:
    """Writing out of order or an event the log cannot represent raises LogWriteError."""
    writer = MatchLogWriter(io.StringIO(), clock=FakeClock())
    with pytest.raises((LogWriteError, TypeError), match=error):
        misuse(writer)


# --- the writer's bytes on real matches ---------------------------------------------------------


class RecordingWriter(MatchLogWriter):
    """A writer that also keeps the plain records (``input_record``, ``output_records``: what
    ``replay verify`` compares) of every input and output it writes, in order, and the ``t`` each
    should carry: one clock reading an input, one for all the lines of an output."""

    def __init__(self, stream: io.StringIO) -> None:
        super().__init__(stream, clock=FakeClock())
        self.records: list[dict[str, Any]] = []
        self.times: list[float] = []
        self.readings = 0  # after the header's: FakeClock's quarter seconds since it

    def input(self, event: object) -> None:
        self.records.append({"event": "input", **input_record(event)})
        self.readings += 1
        self.times.append(0.25 * self.readings)
        super().input(event)

    def output(self, output: Any, **options: Any) -> None:
        records = output_records(output)
        self.records.extend(records)
        self.readings += 1
        self.times.extend([0.25 * self.readings] * len(records))
        super().output(output, **options)


def test_lines_of_a_real_match_are_their_plain_records_rendered_byte_for_byte() -> None:
    """Each line is exactly its plain record (as a reader parses it back) rendered compactly,
    keys in order, with seq, t and the chained hash: the writer's shortcuts (structs encoded as
    they are, no copy into plain data, one clock reading for an output's lines) change no byte
    of the format."""
    from dungeon.config import RulesConfig
    from sim.dungeon import play_match

    stream = io.StringIO()
    writer = RecordingWriter(stream)
    writer.header(seed=4, config={}, version="9.9", match=None, source="sim")
    config = RulesConfig(nodes=300, radius=0.11)
    play_match(4, ["reference", "rusher"], config, with_optimum=False, log=writer)
    lines = stream.getvalue().splitlines(keepends=True)
    assert len(writer.records) == len(lines) - 1 > 200
    previous = json.loads(lines[0])["hash"]
    rows = zip(lines[1:], writer.records, writer.times, strict=True)
    for number, (line, record, t) in enumerate(rows, 2):
        body = msgspec.json.encode({"seq": number, "t": t, **record})
        expected, previous = seal(previous, body.decode())
        assert line == expected + "\n", f"line {number}"


def logged_plain_and_preencoded(output: Any) -> list[str]:
    """The log text of ``output`` written twice: messages encoded by the writer, then handed
    over already encoded (as the server does)."""
    from protocol.encoding import encode

    logs = []
    for encoded in (None, [encode(o.message) for o in output.messages]):
        stream = io.StringIO()
        writer = MatchLogWriter(stream, clock=FakeClock())
        writer.header(seed=9, config={}, version="9.9", match=None, source="server")
        writer.output(output, encoded=encoded)
        logs.append(stream.getvalue())
    return logs


def test_messages_given_already_encoded_are_written_as_encoding_them_would() -> None:
    """``output(..., encoded=...)`` (the server hands over the `dungeon` lines it sends) writes
    the same bytes as encoding each message again."""
    from dungeon.config import RulesConfig
    from dungeon.engine import Match

    begin = Match(9, RulesConfig(nodes=300, radius=0.11)).begin()
    logs = logged_plain_and_preencoded(begin)
    assert logs[0] == logs[1]
    assert logs[0].count('"type":"dungeon"') == 12


def test_a_trap_problem_given_its_encoded_sat_is_written_as_encoding_it_would() -> None:
    """A `trap_problem` event's clauses are cut from its `sat`'s encoded line when the caller
    hands that over: the event and send lines are the bytes encoding both again gives."""
    from dungeon import engine
    from dungeon.config import RulesConfig
    from protocol import messages

    match = engine.Match(9, RulesConfig(nodes=300, radius=0.11))
    heir = engine.AgentId(0, 0)
    dungeon = next(o.message for o in match.begin().messages if o.to == heir)
    here = dungeon.start[0]
    to = next(v if u == here else u for u, v in dungeon.edges if here in (u, v))
    output = match.apply(engine.Request(heir, messages.Move(to=to)))
    assert [type(fact).__name__ for fact in output.events] == ["TrapProblem"]
    logs = logged_plain_and_preencoded(output)
    assert logs[0] == logs[1]
    problem = json.loads(logs[0].splitlines()[1])
    assert problem["traps"] == [list(trap) for trap in output.events[0].traps]
    assert list(problem)[-2:] == ["traps", "hash"]


def test_lines_may_be_flushed_by_the_owner_instead() -> None:
    """With ``flush_each_line=False`` lines wait in the stream's buffer until ``flush``;
    ``close`` flushes the last ones."""

    stream = CountingStream()
    writer = MatchLogWriter(stream, clock=FakeClock(), flush_each_line=False)
    writer.header(seed=1, config={}, version="9.9", match=None, source="server")
    writer.input(TimeUp())
    assert stream.flushes == 0
    writer.flush()
    assert stream.flushes == 1
    writer.close(reason="over")
    assert stream.flushes == 2
    assert writer.lines_written == 3
