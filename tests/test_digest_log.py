"""Digest logs (schema 2, the default): inputs and digests, gzip, hash-chained and signed.

Real matches written by the server (loopback) and by the simulator, in both formats for the same
seed: the digest log re-runs to the very lines the full log holds. Tampering with the compressed
bytes, a line, the order of lines, or cutting the file is each detected; a re-hashed copy passes
the unkeyed checks only and fails ``verify --key``.
"""

from __future__ import annotations

import gzip
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any

import pytest
from replay_logs import server_log, sim_log

from arena.replay import main
from replay.chainlog import CHAIN_HEX, SIGN_EVERY
from replay.chainlog import chain_of as _chain
from replay.digestlog import key_id
from replay.keyfile import default_key_path, load_key
from replay.matchlog import read_log

KEY = b"0123456789abcdef" * 4


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("digest")
    return {
        "server": server_log(directory / "server", log_maps="digest", log_key=KEY),
        "server-full": server_log(directory / "server-full", log_maps="each"),
        "sim": sim_log(directory / "sim.jsonl", maps="digest"),
        "sim-full": sim_log(directory / "sim-full.jsonl", maps="each"),
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def plain_lines(path: Path) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).splitlines(keepends=True)


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(gzip.compress(b"".join(lines)))
    return path


def rehashed(lines: list[bytes]) -> list[bytes]:
    """The lines with every chain hash recomputed (as a forger without the key would)."""
    out, previous = [], b""
    for line in lines:
        body = line.rstrip(b"\n")[: -(CHAIN_HEX + len(',"h":""}'))] + b"}"
        previous = _chain(previous, body)
        out.append(b'%b,"h":"%b"}\n' % (body[:-1], previous))
    return out


def records(path: Path) -> list[dict[str, Any]]:
    """Every engine event and message of a log (as read: a digest log's regenerated)."""
    return [
        {k: v for k, v in line.data.items() if k not in ("seq", "t")}
        for line in read_log(path).outputs
    ]


@pytest.mark.parametrize("source", ["server", "sim"])
def test_digest_log_regenerates_every_line_of_the_full_log(
    logs: dict[str, Path], source: str
) -> None:
    """The same match (same seed, same teams) logged both ways: the digest log, re-run, gives
    every engine event and every message the full log wrote, at a small part of its size."""
    digest, full = logs[source], logs[f"{source}-full"]
    assert digest.name.endswith(".jsonl.gz")
    if source == "sim":
        assert read_log(digest).header["players"] == ["reference", "rusher"]
    assert read_log(digest).complete
    if source == "sim":  # headless: the very same match, line for line
        assert records(digest) == records(full)
        assert digest.stat().st_size * 20 < full.stat().st_size
    else:  # over loopback the two runs are two matches (arrival order): size its own lines
        written = sum(
            len(json.dumps(line.data, separators=(",", ":"))) + 1
            for line in read_log(digest).outputs
        )
        assert digest.stat().st_size * 20 < written


def test_verify_says_ok_and_what_the_signature_check_amounts_to(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the key: OK, checked unsigned only. With it: genuine. With another key: FAIL."""
    path = str(logs["server"])
    status, out, _ = run(capsys, "verify", path)
    assert status == 0
    assert out.startswith(f"OK {path}:")
    assert "checked unsigned only" in out
    key = tmp_path / "server.key"
    key.write_bytes(KEY + b"\n")
    status, out, _ = run(capsys, "verify", path, "--key", str(key))
    assert status == 0
    assert "signature: genuine, signed with this key through line" in out
    key.write_bytes(b"another key")
    status, out, _ = run(capsys, "verify", path, "--key", str(key))
    assert status == 1
    assert "signed with another key" in out


def test_show_prints_every_message_as_sent(
    logs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """show on a digest log tells the same story as on the full log of the same match."""
    status, digest_out, _ = run(capsys, "show", str(logs["sim"]), "--width", "200", "--requests")
    assert status == 0
    status, full_out, _ = run(capsys, "show", str(logs["sim-full"]), "--width", "200")
    assert status == 0
    assert "wins" in digest_out
    assert "team 0 reference  team 1 rusher" in digest_out
    # The per-team summary (the line above it gives the host's seconds, which differ).
    assert digest_out.splitlines()[-2:] == full_out.splitlines()[-2:]


def test_a_changed_byte_of_the_compressed_file_fails(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = bytearray(logs["sim"].read_bytes())
    raw[len(raw) // 2] ^= 0x01
    bad = tmp_path / "byte.jsonl.gz"
    bad.write_bytes(bytes(raw))
    status, out, _ = run(capsys, "verify", str(bad))
    assert status == 1
    assert out.startswith(f"FAIL {bad}")


def test_a_changed_line_fails_at_that_line(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = plain_lines(logs["sim"])
    lines[5] = lines[5].replace(b'"t":', b'"t":1', 1)
    bad = write_lines(tmp_path / "line.jsonl.gz", lines)
    status, out, _ = run(capsys, "verify", str(bad))
    assert status == 1
    assert f"FAIL {bad} line 6: hash does not chain" in out


def test_reordered_lines_fail(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = plain_lines(logs["sim"])
    lines[6], lines[7] = lines[7], lines[6]
    bad = write_lines(tmp_path / "swap.jsonl.gz", lines)
    status, out, _ = run(capsys, "verify", str(bad))
    assert status == 1
    assert f"FAIL {bad} line 7: hash does not chain" in out


def test_a_rehashed_edit_of_an_input_fails_the_engine_rerun(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An input changed and the chain recomputed: its logged output digest no longer matches
    the engine's re-run."""
    lines = plain_lines(logs["sim"])
    number = next(i for i, line in enumerate(lines) if b'"type":"move","to":' in line and i > 2)
    record = json.loads(lines[number])
    record["message"]["to"] = record["message"]["to"] + 1
    body = json.dumps(record, separators=(",", ":")).encode()
    lines[number] = body + b"\n"
    forged = write_lines(tmp_path / "forged.jsonl.gz", rehashed(lines))
    status, out, _ = run(capsys, "verify", str(forged))
    assert status == 1
    assert f"FAIL {forged} line {number + 1}" in out


def test_a_rehashed_edit_passes_unsigned_checks_only(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A time changed (the engine cannot tell) and the chain recomputed: without the key the log
    passes, said to be checked unsigned only; with the key it fails as re-hashed."""
    lines = plain_lines(logs["server"])
    lines[3] = lines[3].replace(b'{"t":', b'{"t":9', 1)
    forged = write_lines(tmp_path / "rehashed.jsonl.gz", rehashed(lines))
    status, out, _ = run(capsys, "verify", str(forged))
    assert status == 0
    assert "checked unsigned only" in out
    key = tmp_path / "k"
    key.write_bytes(KEY)
    status, out, _ = run(capsys, "verify", str(forged), "--key", str(key))
    assert status == 1
    assert "re-hashed" in out
    assert len(lines) > SIGN_EVERY  # the edit is covered by a signature before the close


def test_an_unsigned_log_fails_verify_key(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "k"
    key.write_bytes(KEY)
    status, out, _ = run(capsys, "verify", str(logs["sim"]), "--key", str(key))
    assert status == 1
    assert "carries no signature" in out


@pytest.mark.parametrize("fraction", [0.3, 0.7, 0.999])
def test_a_cut_file_verifies_up_to_the_cut(
    logs: dict[str, Path], tmp_path: Path, fraction: float, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file cut anywhere (a killed server): INCOMPLETE, every line before the cut re-run."""
    raw = logs["server"].read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(raw[: int(len(raw) * fraction)])
    status, out, _ = run(capsys, "verify", str(cut))
    assert status == 0
    assert f"OK {cut}: INCOMPLETE, verified up to its last line" in out
    status, out, _ = run(capsys, "verify", str(cut), "--require-complete")
    assert status == 1


def test_every_flush_is_readable_on_its_own(logs: dict[str, Path]) -> None:
    """The server flushes once per input: the bytes on disk at each moment decompress (sync
    flushes), so a kill loses nothing flushed."""
    inflate = zlib.decompressobj(31)
    text = inflate.decompress(logs["server"].read_bytes()[:-30])
    assert text.count(b"\n") > 10


def test_the_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = default_key_path(tmp_path / "logs")
    assert path == tmp_path / "logs.key"
    key = load_key(path, create=True)
    assert len(key) == 64
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_key(path, create=True) == key
    assert key_id(key) != key_id(b"other")


def test_a_growing_log_is_read_as_it_comes(logs: dict[str, Path]) -> None:
    """The live board reads a digest log in pieces as the server writes it: fed in chunks of
    any size, it regenerates the very lines the whole file gives, each input re-run once."""
    from replay.digestread import DigestTail

    raw = logs["server"].read_bytes()
    whole = [(line.line, line.event, line.data) for line in read_log(logs["server"]).events]
    for size in (1, 97, 4096):
        tail = DigestTail()
        got = []
        for start in range(0, len(raw), size):
            got += [
                (line.line, line.event, line.data) for line in tail.feed(raw[start : start + size])
            ]
        assert tail.broken is None
        assert got == whole


def test_a_log_past_its_budget_keeps_the_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A digest log that reaches its size budget stops recording inputs, the match plays on,
    and its close line records the result the full log's game over gives; it still verifies."""
    from sim.dungeon import DungeonGame

    game = dict(optimum=False, nodes=300, radius=0.11)
    full = tmp_path / "full.jsonl"
    whole = DungeonGame(maps="each", **game).play_logged(5, ["reference", "rusher"], full)
    small = tmp_path / "small.jsonl"
    cut = DungeonGame(maps="digest", log_budget=3000, **game).play_logged(
        5, ["reference", "rusher"], small
    )
    assert (cut.winner, cut.length) == (whole.winner, whole.length)  # played to the end
    small = small.with_name("small.jsonl.gz")
    log = read_log(small)
    over = next(line.data for line in read_log(full).outputs if line.event == "game_over")
    assert log.close is not None
    assert log.close.data["result"] == {"winner": over["winner"], "reason": over["reason"]}
    assert log.close.data["budget"]["limit"] == 3000
    assert log.close.data["budget"]["dropped"] > 0
    status, out, _ = run(capsys, "verify", str(small))
    assert status == 0
    assert f"result recorded: winner {over['winner']} ({over['reason']})" in out


def test_arena_sim_says_how_much_it_wrote_and_warns_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.sim import main as sim_main

    """--logs: the run ends saying how many files and bytes it wrote, and warns once (one line
    for every log that reached it) when logs reached their size budget."""
    argv = ["dungeon", "--strategies", "rusher,reference", "--matches", "2", "--workers", "1"]
    argv += ["--quiet", "--config", "nodes=300", "radius=0.11"]
    assert sim_main([*argv, "--logs", str(tmp_path / "l"), "--log-budget", "2500"]) == 0
    err = capsys.readouterr().err
    assert "logs: 2 files, " in err
    assert err.count("warning: 2 match logs reached their size budget of 2,500 bytes") == 1
    assert sim_main([*argv, "--logs", str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert "logs: 2 files, " in err
    assert "size budget" not in err


def test_the_server_warns_once_and_plays_on_past_the_budget(tmp_path: Path) -> None:
    """A server match whose log reaches its budget: one warning, the match ends as it would,
    and the log's close line records that result."""
    import trio
    from structlog.testing import capture_logs

    from arena.match import play_match
    from dungeon.config import RulesConfig

    async def play() -> Any:
        return await play_match(
            ("reference", "rusher"), seed=3, config=RulesConfig(nodes=300, radius=0.11),
            log_dir=tmp_path, log_budget=3000, checker=None,
        )  # fmt: skip

    with capture_logs() as events:
        report = trio.run(play)
    warnings = [e for e in events if e["event"] == "log_budget_exceeded"]
    assert len(warnings) == 1
    log = read_log(report.log_path)
    assert log.close is not None
    assert log.close.data["reason"] == "shrine"
    assert log.close.data["result"]["reason"] == "shrine"
    assert log.close.data["budget"]["dropped"] > 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (gzip.compress(b"hello\n", mtime=0), "not a match log"),
        (
            gzip.compress(
                b'{"event":"header","schema":2,"seed":1,"config":{"nodes":-5},"h":"x"}\n',
                mtime=0,
            ),
            "the header's seed or rules are not ones this version plays",
        ),
        (
            gzip.compress(b'{"event":"header","schema":9,"h":"x"}\n', mtime=0),
            "log schema version 9",
        ),
        (b"\x1f\x8b garbage", "not a match log"),
    ],
)
def test_a_bad_compressed_file_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(content)
    for command in (["verify"], ["show"], ["render", "-o", str(tmp_path / "x.html")]):
        status, out, err = run(capsys, command[0], str(bad), *command[1:])
        assert status == 2
        assert out == ""
        assert len(err.strip().splitlines()) == 1
        assert message in err


def test_the_viewer_names_the_players(logs: dict[str, Path], tmp_path: Path) -> None:
    """render: the page's data carries the players a digest log names (its header shows them)."""
    from replay.html import render_html, viewer_data
    from replay.timeline import build_timeline

    log = read_log(logs["sim"])
    data = viewer_data(log, build_timeline(log))
    assert data["header"]["players"] == ["reference", "rusher"]
    assert data["players"] == ["team 0: reference", "team 1: rusher"]
    page = render_html(log, build_timeline(log))
    assert '"players":["team 0: reference","team 1: rusher"]' in page
