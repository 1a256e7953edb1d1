"""``arena replay``: verify, show, render --png and fork, on logs the server and simulator wrote.

The logs are real matches (tests/replay_logs.py): one over loopback TCP through ``server.serve``,
one from the simulator's headless driver, one from the bare engine. Tampered copies are made by
editing their lines; "forged" copies re-hash the chain after the edit, so only the re-run of
the engine can catch them.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from replay_logs import engine_log, rechain, server_log, sim_log

from arena.replay import main
from replay.matchlog import read_log
from replay.rerun import replay_until

LogFiles = dict[str, Path]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> LogFiles:
    directory = tmp_path_factory.mktemp("logs")
    return {
        "server": server_log(directory / "server"),
        "sim": sim_log(directory / "sim.jsonl"),
        "engine": engine_log(directory / "engine.jsonl"),
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def parsed(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines_of(path)]


def first_line(path: Path, predicate: Any) -> int:
    """The 1-based number of the first line whose parsed event satisfies ``predicate``."""
    return next(i for i, event in enumerate(parsed(path), start=1) if predicate(event))


@pytest.mark.parametrize("source", ["server", "sim", "engine"])
def test_verify_passes_on_real_logs(
    logs: LogFiles, source: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An untouched log re-runs exactly, optima included: OK, the summary, exit 0."""
    status, out, _ = run(capsys, "verify", str(logs[source]), "--optimum")
    events = parsed(logs[source])
    inputs = sum(event["event"] == "input" for event in events)
    assert status == 0
    assert out.startswith(f"OK {logs[source]}: {len(events)} lines, {inputs} inputs re-run")
    assert events[0]["source"] == ("server" if source == "server" else "sim")
    over = next(event for event in events if event["event"] == "game_over")
    result = "draw" if over["winner"] is None else f"team {over['winner']} wins"
    assert f"  {result} ({over['reason']})" in out


def test_server_log_records_optima_beside_the_traps_left_active(logs: LogFiles) -> None:
    """The server's log scores each crossing: an optimum never exceeds the traps left active."""
    events = parsed(logs["server"])
    optima = {e["crossing"]: e["value"] for e in events if e["event"] == "optimum"}
    crossings = [e for e in events if e["event"] == "crossing"]
    assert crossings
    assert all(optima[c["crossing"]] <= c["active"] for c in crossings)


def changed(lines: list[str], n: int) -> list[str]:
    """Line n with its die roll set to another value, in whatever form the writer printed it
    (0.78..., or 5e-05 for a tiny roll, which a text edit of "0." would have missed)."""
    line = lines[n - 1]
    roll = re.search(r'"roll":([^,}]+)', line)
    assert roll is not None
    other = "0.25" if roll[1] == "0.5" else "0.5"
    return [*lines[: n - 1], line.replace(roll[0], f'"roll":{other}', 1), *lines[n:]]


def deleted(lines: list[str], n: int) -> list[str]:
    return [*lines[: n - 1], *lines[n:]]


def swapped(lines: list[str], n: int) -> list[str]:
    return [*lines[: n - 1], lines[n], lines[n - 1], *lines[n + 1 :]]


TAMPERING = {"changed": changed, "deleted": deleted, "swapped": swapped}


@pytest.mark.parametrize("source", ["server", "sim"])
@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_a_tampered_line_fails_with_its_line_number(
    logs: LogFiles, source: str, how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A changed, deleted or swapped line fails verify at that line's number, exit 1."""
    path = logs[source]
    n = first_line(path, lambda e: e["event"] == "crossing")
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(TAMPERING[how](lines_of(path), n)))
    status, out, _ = run(capsys, "verify", str(tampered))
    assert status == 1
    assert out.startswith(f"FAIL {tampered} line {n}: hash does not chain")
    # Expected vs found: the crossing the re-run wanted at line n, beside the line that is there.
    expected = next(line for line in out.splitlines() if line.startswith("  expected: "))
    assert json.loads(expected.removeprefix("  expected: "))["event"] == "crossing"
    found = next(line for line in out.splitlines() if line.startswith("  found:    "))
    shown = found.removeprefix("  found:    ").removesuffix("...")
    assert tampered.read_text().splitlines()[n - 1].startswith(shown)


def forge_roll(event: dict[str, Any]) -> bool:
    if event["event"] != "crossing":
        return False
    event["roll"] = 0.999999
    return True


def forge_location(event: dict[str, Any]) -> bool:
    if event["event"] != "send" or event["message"]["type"] != "moved":
        return False
    event["message"]["location"] += 1
    return True


def forge_move(event: dict[str, Any]) -> bool:
    if event["event"] != "input" or event.get("message", {}).get("type") != "move":
        return False
    event["message"]["to"] += 1
    return True


@pytest.mark.parametrize(
    ("what", "forge"),
    [("a die roll", forge_roll), ("a message", forge_location), ("an input", forge_move)],
)
def test_a_rehashed_forgery_fails_where_the_rerun_differs(
    logs: LogFiles, what: str, forge: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forger who re-hashes the chain is caught by the re-run: first differing line, exit 1."""
    events = parsed(logs["server"])
    changed = next(i for i, event in enumerate(events, start=1) if forge(event))
    forged = tmp_path / "forged.jsonl"
    forged.write_text(rechain(events))
    status, out, _ = run(capsys, "verify", str(forged))
    assert status == 1
    found = re.match(rf"FAIL {re.escape(str(forged))} line (\d+): the re-run differs", out)
    assert found is not None, out
    # A changed output fails on its own line; a changed input, on the first output it changes.
    assert int(found.group(1)) == changed if what != "an input" else int(found.group(1)) > changed
    assert "expected: " in out
    assert "found: " in out
    if what == "a die roll":
        assert "first difference: roll: expected 0." in out
        assert "found 0.999999" in out


@pytest.mark.parametrize("source", ["server", "sim"])
@pytest.mark.parametrize("keep", [0.3, 0.8])
def test_a_truncated_log_verifies_up_to_its_last_line_and_says_incomplete(
    logs: LogFiles, source: str, keep: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log cut short (the server killed) verifies up to its last line and says INCOMPLETE."""
    lines = lines_of(logs[source])
    count = int(len(lines) * keep)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:count]) + lines[count][: len(lines[count]) // 2])
    status, out, _ = run(capsys, "verify", str(cut))
    assert status == 0
    assert out.startswith(f"OK {cut}: INCOMPLETE, verified up to its last line {count} ")
    assert "cut mid-write" in out
    assert "no result" in out
    status, _, _ = run(capsys, "verify", str(cut), "--require-complete")
    assert status == 1


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["verify", "missing.jsonl"], "missing.jsonl: no such file"),
        (["show", "not-a-log.jsonl"], "line 1 is not a match log header"),
        (["render", "LOG"], "give -o FILE.html, --png FILE.png, or both"),
        (["render", "LOG", "--png", "x.png", "--step", "100000"], "--step 100000: the match has"),
        (["fork", "LOG", "--at", "5", "--strategies", "reference"], "give two names"),
        (["fork", "LOG", "--at", "5", "--strategies", "reference,nobody"], "unknown strategy"),
        (["fork", "LOG", "--at", "999999", "--strategies", "rusher,rusher"], "the log's lines"),
    ],
)
def test_bad_input_exits_2_naming_the_cause(
    logs: LogFiles,
    argv: list[str],
    error: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A missing file, a file that is not a log or a bad option exits 2 with the cause on stderr."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not-a-log.jsonl").write_text("hello\n")
    argv = [str(logs["sim"]) if arg == "LOG" else arg for arg in argv]
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert error in err


def test_another_schema_version_is_refused(
    logs: LogFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every replay command refuses a log of another schema version, naming both versions."""
    events = parsed(logs["sim"])
    events[0]["schema"] = 2
    other = tmp_path / "v2.jsonl"
    other.write_text(rechain(events))
    for command in (["verify"], ["show"], ["render", "-o", str(tmp_path / "x.html")]):
        status, _, err = run(capsys, command[0], str(other), *command[1:])
        assert status == 2
        assert "log schema version 2, but this software reads version 1 only" in err
    assert not (tmp_path / "x.html").exists()


def test_show_filters_by_team_and_agent(logs: LogFiles, capsys: pytest.CaptureFixture[str]) -> None:
    """show --team T --agent A lists that agent's crossings and deaths, and nobody else's moves."""
    events = parsed(logs["server"])
    mine = [e for e in events if e["event"] == "crossing" and e["agent"] == [1, 2]]
    status, out, _ = run(
        capsys, "show", str(logs["server"]), "--team", "1", "--agent", "2", "--no-sightings",
        "--width", "200",
    )  # fmt: skip
    assert status == 0
    moves = [line for line in out.splitlines() if " crossed " in line or " died in a trap " in line]
    assert len(moves) == len(mine)
    assert all("T1 a2" in line for line in moves)
    assert sum(" died in a trap " in line for line in moves) == sum(not e["survived"] for e in mine)


def test_show_tells_the_whole_story(logs: LogFiles, capsys: pytest.CaptureFixture[str]) -> None:
    """show names every crossing with its traps vs optimum, every kill, sightings and the end."""
    events = parsed(logs["server"])
    status, out, _ = run(capsys, "show", str(logs["server"]), "--width", "220")
    assert status == 0
    crossings = [e for e in events if e["event"] == "crossing"]
    assert sum(" crossed " in line or " died in a trap " in line for line in out.splitlines()) == (
        len(crossings)
    )
    first = crossings[0]
    optimum = next(
        e["value"] for e in events if e["event"] == "optimum" and e["crossing"] == first["crossing"]
    )
    assert f"traps active {first['active']}, optimum {optimum}" in out
    kills = [e for e in events if e["event"] == "kill"]
    assert sum(" killed T" in line for line in out.splitlines()) == len(kills)
    assert " sees " in out
    assert "game over: team 0 wins (shrine)" in out or "game over: team 1 wins (shrine)" in out


def test_png_still_of_a_given_step(
    logs: LogFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """render --png draws a PNG of the last step, or of --step N."""
    for extra in ([], ["--step", "3"]):
        picture = tmp_path / f"still{len(extra)}.png"
        status, out, _ = run(capsys, "render", str(logs["sim"]), "--png", str(picture), *extra)
        assert status == 0
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert ("step 3 of" in out) if extra else "step " in out


def test_html_is_self_contained(
    logs: LogFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The HTML file loads nothing from the network: no external scripts, styles, fonts, images."""
    page = tmp_path / "match.html"
    status, _, _ = run(capsys, "render", str(logs["server"]), "-o", str(page))
    text = page.read_text()
    assert status == 0
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "@import" not in text
    assert "<link" not in text
    assert set(re.findall(r"https?://[^\s\"'<>]+", text)) <= {"http://www.w3.org/2000/svg"}
    assert '<meta name="viewer-schema" content="1">' in text


def fork_lines(path: Path) -> list[dict[str, Any]]:
    """Parsed lines without what differs between two writings of one event (time, hash)."""
    return [{k: v for k, v in e.items() if k not in ("t", "hash")} for e in parsed(path)]


@pytest.mark.parametrize("source", ["server", "sim"])
@pytest.mark.parametrize("where", [0.1, 0.5])
def test_fork_equals_the_original_up_to_n(
    logs: LogFiles, source: str, where: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fork after line N repeats lines 2..N of the original, then plays on, and verifies."""
    original = fork_lines(logs[source])
    n = next(
        i for i in range(int(len(original) * where), 0, -1) if original[i - 1]["event"] == "input"
    )
    forked = tmp_path / "fork.jsonl"
    status, out, _ = run(
        capsys, "fork", str(logs[source]), "--at", str(n), "--strategies", "rusher,random",
        "-o", str(forked), "--steps", "10",
    )  # fmt: skip
    assert status == 0
    assert f"after line {n}" in out
    copy = fork_lines(forked)
    assert copy[1:n] == original[1:n]
    assert copy[0]["forked_from"]["at"] == n
    assert (copy[0]["seed"], copy[0]["config"]) == (original[0]["seed"], original[0]["config"])
    assert len(copy) > n
    status, out, _ = run(capsys, "verify", str(forked))
    assert status == 0
    assert out.startswith(f"OK {forked}:")


def test_fork_starts_from_the_engine_state_after_n(logs: LogFiles, tmp_path: Path) -> None:
    """The forked match's first positions are where the original's engine stood after line N."""
    from sim.fork import fork

    log = read_log(logs["sim"])
    n = log.inputs[len(log.inputs) // 2].line
    engine, _ = replay_until(log, n)
    result = fork(log, at=n, strategies=("reference", "reference"), steps=5)
    from dungeon.engine import AgentId

    heirs = (engine.location(AgentId(0, 0)), engine.location(AgentId(1, 0)))
    assert result.heirs == heirs
    assert result.inputs_replayed == sum(line.line <= n for line in log.inputs)


def test_fork_is_reproducible_and_the_seed_offset_varies_it(
    logs: LogFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same fork twice writes the same events; another --seed-offset plays another future."""
    n = read_log(logs["sim"]).inputs[10].line
    written = []
    for name, offset in (("a", "0"), ("b", "0"), ("c", "1")):
        path = tmp_path / f"{name}.jsonl"
        status, _, _ = run(
            capsys, "fork", str(logs["sim"]), "--at", str(n), "--strategies", "random,random",
            "--seed-offset", offset, "-o", str(path), "--steps", "8",
        )  # fmt: skip
        assert status == 0
        written.append(fork_lines(path)[1:])
    assert written[0] == written[1]
    assert written[0] != written[2]


def test_fork_after_the_end_is_refused(logs: LogFiles, capsys: pytest.CaptureFixture[str]) -> None:
    """Forking after the game is over says so and exits 2."""
    events = parsed(logs["sim"])
    n = first_line(logs["sim"], lambda e: e["event"] == "game_over")
    status, _, err = run(
        capsys,
        "fork",
        str(logs["sim"]),
        "--at",
        str(len(events) - 1),
        "--strategies",
        "rusher,rusher",
    )
    assert n < len(events)
    assert status == 2
    assert "already over" in err


@pytest.mark.parametrize("source", ["server", "engine"])
def test_timeline_frames_are_the_engines_state_after_each_step(logs: LogFiles, source: str) -> None:
    """Every frame (what show, render and --png draw) holds the engine's positions and NPCs."""
    from dungeon.engine import AgentId
    from replay.rerun import engine_input, new_match
    from replay.timeline import build_timeline

    log = read_log(logs[source])
    timeline = build_timeline(log)
    match = new_match(log)
    match.begin()
    inputs = iter(log.inputs)
    applied = 1  # the header line: begin() only
    for frame in timeline.frames:
        while applied < frame.line:
            line = next(inputs)
            match.apply(engine_input(line))
            applied = line.line
        assert frame.positions == tuple(
            match.location(AgentId(team, agent)) for team in (0, 1) for agent in range(6)
        )
        assert frame.npcs == match.npcs
    assert match.is_over
    assert timeline.summary.winner == match.winner


def test_a_forfeit_is_verified_and_told(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A team whose sockets all closed loses by forfeit: verify re-runs it, show tells it."""
    from dungeon.config import RulesConfig
    from dungeon.engine import AgentId, Disconnect, Match, Request
    from protocol.messages import Move
    from replay.matchlog import MatchLogWriter, software_version

    path = tmp_path / "forfeit.jsonl"
    config = RulesConfig(nodes=300, radius=0.11)
    match = Match(4, config)
    heir = AgentId(0, 0)
    with path.open("w") as stream:
        writer = MatchLogWriter(stream, clock=time.monotonic)
        writer.header(seed=4, config=config.to_dict(), version=software_version(), match="ff",
                      source="server")  # fmt: skip
        writer.output(match.begin())
        for event in (Request(heir, Move(to=10**6)), Disconnect(AgentId(1, 3))):
            writer.input(event)
            writer.output(match.apply(event))
        writer.close(reason="forfeit")
    status, out, _ = run(capsys, "verify", str(path))
    assert status == 0
    assert "team 0 wins (forfeit)" in out
    status, out, _ = run(capsys, "show", str(path), "--width", "200")
    assert "T0 heir error: move: there is no node 1000000" in out
    assert "team 1 disconnected (forfeit)" in out
    assert "game over: team 0 wins (forfeit)" in out


def test_show_names_where_each_trap_death_was_headed(
    logs: LogFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each trap death is told with the node the agent was crossing to, in log order."""
    deaths = [e for e in parsed(logs["engine"]) if e["event"] == "crossing" and not e["survived"]]
    status, out, _ = run(capsys, "show", str(logs["engine"]), "--no-sightings", "--width", "250")
    told = re.findall(r"(T\d (?:heir|a\d)) died in a trap on the way to (\d+)", out)
    assert status == 0
    assert deaths
    assert told == [
        (
            f"T{d['agent'][0]} " + ("heir" if d["agent"][1] == 0 else f"a{d['agent'][1]}"),
            str(d["to"]),
        )
        for d in deaths
    ]


def test_verify_checks_many_logs_and_exits_with_the_worst(
    logs: LogFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify LOG LOG ...: each log gets its verdict; one bad log makes the status 1."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(deleted(lines_of(logs["sim"]), 40)))
    status, out, _ = run(capsys, "verify", str(logs["server"]), str(bad), str(logs["engine"]))
    assert status == 1
    assert f"OK {logs['server']}:" in out
    assert f"FAIL {bad} line 40:" in out
    assert f"OK {logs['engine']}:" in out
    assert out.endswith("3 logs checked: NOT all OK\n")
    status, out, _ = run(capsys, "verify", str(logs["server"]), str(logs["sim"]))
    assert status == 0
    assert out.endswith("2 logs checked: all OK\n")


def test_a_still_title_never_gives_the_result_away(logs: LogFiles) -> None:
    """The PNG still's title names match, seed and step, not who won, even at the last step."""
    from replay.still import still_title
    from replay.timeline import build_timeline

    timeline = build_timeline(read_log(logs["sim"]))
    last = len(timeline.frames) - 1
    title = still_title(timeline, last)
    assert f"step {last} of {last}" in title
    assert str(timeline.header["seed"]) in title
    for spoiler in ("win", "draw", "team 0", "team 1", "shrine"):
        assert spoiler not in title


def test_the_viewer_files_ship_as_package_data() -> None:
    """The page, style sheets and scripts (the shell and each game's drawing) are real files
    of the replay package."""
    from replay.viewer_assets import DRAWINGS, page_parts

    for drawing in DRAWINGS:
        template, css, script, draw = page_parts(drawing)
        assert "@@SCRIPT@@" in template
        assert "@@DRAWING@@" in template
        assert ".glyph" in css
        assert "VIEWER_SCHEMA" in script
        assert "window.arenaDrawing" in draw
    with pytest.raises(ValueError, match="no drawing 'chess'"):
        page_parts("chess")
