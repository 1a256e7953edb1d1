"""Every command, run as a user runs it (a real process), on bad input and on Ctrl-C.

Bad usage: exit 2 and one line on stderr naming the flag, file or value. A failure: exit 1.
Ctrl-C: exit 130, quietly. Never a traceback. Each case below was once a traceback or a wrong or
unclear message (issue 15, finding 6).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from replay_logs import sim_log

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]
#: Small dungeons keep the commands that generate one fast; the checks are the same.
SMALL = ["--config", "nodes=300", "radius=0.11"]


def run(
    argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run([*ARENA, *args], cwd)


def refused(result: subprocess.CompletedProcess[str], status: int, *named: str) -> str:
    """Assert the exit status and one line on stderr holding every ``named`` text; return it."""
    assert "Traceback" not in result.stderr
    assert result.returncode == status, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    for text in named:
        assert text in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sim_log(tmp_path_factory.mktemp("logs") / "match.jsonl")


# -- tracebacks that became one line ------------------------------------------------------------


@pytest.mark.parametrize("command", ["serve", "team"])
def test_an_unknown_log_level_is_named(command: str, tmp_path: Path) -> None:
    """`arena serve/team --log-level nonsense` was a traceback from structlog."""
    extra = ["--team", "0"] if command == "team" else []
    result = arena(command, *extra, "--log-level", "nonsense", cwd=tmp_path)
    refused(result, 2, "--log-level", "nonsense", "debug, info, warning")


def test_sim_plot_that_is_no_png_is_refused_before_any_match(tmp_path: Path) -> None:
    """`arena sim --plot x.txt` failed with a traceback after every match had run."""
    result = arena(
        "sim",
        "fish",
        "--strategies",
        "random,greedy",
        "--matches",
        "4",
        "--workers",
        "1",
        "--out",
        "r.json",
        "--plot",
        "x.txt",
        cwd=tmp_path,
    )
    refused(result, 2, "--plot", "x.txt", ".png")
    assert list(tmp_path.iterdir()) == [], "no journal: nothing ran"


@pytest.mark.parametrize("name", ["x.txt", "picture"])
def test_replay_render_png_that_is_no_png_is_named(name: str, match_log: Path) -> None:
    """`arena replay render LOG --png x.txt` (or a name with no extension): a traceback."""
    result = arena("replay", "render", str(match_log), "--png", name, cwd=match_log.parent)
    refused(result, 2, "--png", repr(name))
    assert not (match_log.parent / name).exists()


def test_labyrinth_show_png_that_is_no_png_is_named(tmp_path: Path) -> None:
    """`arena labyrinth show --png x.txt` was a traceback from matplotlib."""
    refused(arena("labyrinth", "show", "--png", "x.txt", cwd=tmp_path), 2, "--png", "x.txt")


def test_replay_render_to_an_impossible_path_names_it(match_log: Path) -> None:
    """`arena replay render LOG -o /proc/x.html` was a FileNotFoundError traceback."""
    result = arena("replay", "render", str(match_log), "-o", "/proc/x.html", cwd=match_log.parent)
    refused(result, 2, "-o /proc/x.html", "cannot write")


def test_a_bad_bench_setting_names_the_variable(tmp_path: Path) -> None:
    """`BENCH_SIM_GAMES=abc python -m bench sim` was a ValueError traceback at import."""
    result = run(
        [sys.executable, "-m", "bench", "sim"],
        ROOT,
        env={"BENCH_SIM_GAMES": "abc"},
    )
    refused(result, 2, "BENCH_SIM_GAMES", "'abc'", "whole number")


# -- Ctrl-C: status 130, nothing on stderr -------------------------------------------------------


def interrupt_at(
    argv: Sequence[str], marker: str, cwd: Path, *, group: bool = True
) -> tuple[int, str]:
    """Start ``argv``, wait until ``marker`` appears on its stdout or stderr, then send SIGINT as
    a terminal's Ctrl-C does (to the whole process group) or, with ``group=False``, to the process
    alone (as ``kill -INT``); return the exit status and everything on stderr."""
    with subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if marker_on_stdout(marker) else subprocess.PIPE,
        start_new_session=True,
        # Ctrl-C as at a terminal, even when the tests themselves run as a background job of a
        # non-interactive shell, which starts them (and so their children) ignoring SIGINT.
        preexec_fn=_default_sigint,
    ) as process:
        stream = process.stdout if marker_on_stdout(marker) else process.stderr
        assert stream is not None
        seen = b""
        while marker.encode() not in seen:
            chunk = stream.read1(4096)  # type: ignore[attr-defined]
            assert chunk, f"ended before {marker!r}: {seen.decode(errors='replace')}"
            seen += chunk
        # Waited for before its input is closed: communicate() closes stdin at once, and a
        # prompt that read that end of input first ended normally (seen on a loaded machine).
        # Pressed again while the program runs: a signal that lands between input() writing
        # its prompt and starting its read is only seen once the read returns (CPython checks
        # for signals between bytecodes), which a person at a terminal never meets.
        prompt = marker_on_stdout(marker)
        for _ in range(120 if prompt else 1):
            if group:
                os.killpg(process.pid, signal.SIGINT)
            else:
                process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=0.5 if prompt else 60)
                break
            except subprocess.TimeoutExpired:
                if not prompt:
                    raise
        out, err = process.communicate(timeout=60)
    rest = (out if marker_on_stdout(marker) else err) or b""
    return process.returncode, (seen + rest).decode(errors="replace")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def marker_on_stdout(marker: str) -> bool:
    """Interactive prompts go to stdout (merged with stderr here); server logs to stderr."""
    return marker != "server_listening"


def test_ctrl_c_in_labyrinth_play_is_quiet(tmp_path: Path) -> None:
    """Ctrl-C at `arena labyrinth play`'s prompt was a KeyboardInterrupt traceback."""
    status, output = interrupt_at(
        [*ARENA, "labyrinth", "play", "--seed", "1"], "your move> ", tmp_path
    )
    assert status == 130
    assert "Traceback" not in output
    assert "KeyboardInterrupt" not in output


def test_ctrl_c_in_penguins_play_is_quiet(tmp_path: Path) -> None:
    """Ctrl-C at `arena penguins play`'s prompt was a KeyboardInterrupt traceback."""
    argv = [*ARENA, "penguins", "play", "--seed", "1", "--rows", "4", "--cols", "4"]
    status, output = interrupt_at(argv, "place a penguin", tmp_path)
    assert status == 130
    assert "Traceback" not in output
    assert "KeyboardInterrupt" not in output


@pytest.mark.parametrize("group", [True, False], ids=["ctrl-c", "kill-int"])
def test_sigint_stops_serve_and_its_checker_workers_quietly(group: bool, tmp_path: Path) -> None:
    """SIGINT to `arena serve` with checker workers: the workers printed KeyboardInterrupt
    tracebacks (Ctrl-C reaches the whole process group); now the server stops them, closes
    cleanly and exits 130, whether the signal reached the group or only the server."""
    argv = [*ARENA, "serve", "--port", "0", "--check-workers", "2", "--log-dir", "logs"]
    status, err = interrupt_at(argv, "server_listening", tmp_path, group=group)
    assert "Traceback" not in err
    assert "KeyboardInterrupt" not in err
    assert status == 130
    assert '"server_stopped"' in err


# -- wrong or unclear messages made right ------------------------------------------------------


def test_match_negative_seed_blames_the_seed(tmp_path: Path) -> None:
    """`arena match --seed -1` said "--config: expected non-negative integer"."""
    line = refused(arena("match", "--seed", "-1", cwd=tmp_path), 2, "--seed", "'-1'")
    assert "--config" not in line


@pytest.mark.parametrize("value", ["99999", "-1", "http"])
def test_serve_port_out_of_range_is_refused(value: str, tmp_path: Path) -> None:
    """`arena serve --port 99999` listened on another port; `--port -1` gave a resolver message."""
    result = arena("serve", "--port", value, "--check-workers", "0", cwd=tmp_path)
    refused(result, 2, "--port", repr(value), "0 to 65535")


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--check-workers", "0"],
        ["match"],
        ["dungeon"],
        ["sim", "fish", "--strategies", "random,greedy"],
        ["labyrinth", "show"],
        ["labyrinth", "play"],
        ["team", "--team", "0"],
        ["fish", "clients", "1"],
        ["check-client"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_every_command_refuses_a_negative_seed_alike(argv: list[str], tmp_path: Path) -> None:
    """Negative seeds were accepted by serve, sim and labyrinth but refused by match and dungeon:
    now one rule (0 to 2**63-1) and one message everywhere."""
    program = ["--", "true"] if argv == ["check-client"] else []
    result = arena(*argv, "--seed", "-1", *program, cwd=tmp_path)
    line = refused(result, 2, "--seed", "'-1'")
    assert "a seed is a whole number from 0 to 9223372036854775807" in line


def test_replay_show_negative_width_is_refused(match_log: Path) -> None:
    """`arena replay show --width -5` printed nothing and exited 0."""
    result = arena("replay", "show", str(match_log), "--width", "-5", cwd=match_log.parent)
    refused(result, 2, "--width", "'-5'")


def test_replay_fork_negative_steps_is_refused(match_log: Path) -> None:
    """`arena replay fork --steps -3` exited 0."""
    result = arena(
        "replay",
        "fork",
        str(match_log),
        "--at",
        "5",
        "--strategies",
        "reference,rusher",
        "--steps",
        "-3",
        cwd=match_log.parent,
    )
    refused(result, 2, "--steps", "'-3'")


def test_verify_require_complete_says_fail_on_a_cut_log(match_log: Path, tmp_path: Path) -> None:
    """`verify --require-complete` on a cut log printed "OK ... INCOMPLETE" and exited 1."""
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(match_log.read_text().splitlines(keepends=True)[:60]))
    strict = arena("replay", "verify", "--require-complete", str(cut), cwd=tmp_path)
    assert strict.returncode == 1
    assert strict.stdout.startswith(f"FAIL {cut}: INCOMPLETE")
    lenient = arena("replay", "verify", str(cut), cwd=tmp_path)
    assert lenient.returncode == 0
    assert lenient.stdout.startswith(f"OK {cut}: INCOMPLETE")


def test_render_of_a_tampered_log_warns_on_the_terminal(match_log: Path, tmp_path: Path) -> None:
    """`arena replay render` of a tampered log exited 0 without a word."""
    import re

    lines = match_log.read_text().splitlines(keepends=True)
    lines[30] = re.sub(r'"t": ?[0-9.]+', '"t":1234.5', lines[30])  # changed after the fact
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(lines))
    result = arena("replay", "render", str(tampered), "-o", "view.html", cwd=tmp_path)
    line = refused(result, 0, "warning", str(tampered), "line 31")
    assert "arena replay verify" in line


def test_bench_help_lists_the_benchmarks() -> None:
    """`python -m bench --help` said "unknown benchmarks: --help"."""
    result = run([sys.executable, "-m", "bench", "--help"], ROOT)
    assert result.returncode == 0
    assert "usage: python -m bench" in result.stdout
    assert "sim" in result.stdout
    assert result.stderr == ""


def test_arena_version_comes_from_the_package_metadata(tmp_path: Path) -> None:
    """There was no `arena --version`."""
    from importlib.metadata import version

    result = arena("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == f"arena {version('dungeon-arena')}\n"


@pytest.mark.parametrize(
    ("argv", "named", "internal"),
    [
        (["dungeon", "--seed", "1", "--config", "nodes=2"], "--config nodes:", "RulesConfig"),
        (["serve", "--config", "radius=0"], "--config radius:", "RulesConfig"),
        (
            ["sim", "labyrinth", "--strategies", "random,astar", "--config", "width=4"],
            "--config width:",
            "width_range",
        ),
    ],
    ids=["dungeon", "serve", "sim-labyrinth"],
)
def test_messages_name_the_users_key_not_internals(
    argv: list[str], named: str, internal: str, tmp_path: Path
) -> None:
    """Messages named `RulesConfig.nodes` and `width_range` where the user typed nodes, width."""
    line = refused(arena(*argv, cwd=tmp_path), 2, named)
    assert internal not in line


def test_penguins_player_timing_out_on_name_reads_as_a_timeout(tmp_path: Path) -> None:
    """A Penguins player that never answers `name` was reported as "exit None"."""
    silent = f"{sys.executable} -c 'import time; time.sleep(60)'"
    player = f"{sys.executable} -m arena penguins"
    result = arena(
        "penguins",
        "master",
        "--player",
        silent,
        "--player",
        player,
        "--timeout",
        "0.5",
        "--rows",
        "4",
        "--cols",
        "4",
        "--workdir",
        "game",
        cwd=tmp_path,
    )
    assert "Traceback" not in result.stderr
    assert "'name' failed: timed out after 0.5 s" in result.stdout
    assert "exit None" not in result.stdout


# -- the guard's other cases -----------------------------------------------------------------------


def test_an_unwritable_stdout_is_one_line_and_status_1(tmp_path: Path) -> None:
    """Output to a full device: one line naming the output, status 1, no 'Exception ignored'."""
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*ARENA, "dungeon", "--seed", "1", "--json", *SMALL],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    refused(result, 1, "arena dungeon", "cannot write its output", "No space left on device")


def test_an_unknown_command_is_one_line(tmp_path: Path) -> None:
    refused(arena("fihs", cwd=tmp_path), 2, "unknown command 'fihs'", "arena --help")


# -- long runs are never silent ------------------------------------------------------------------


def test_sim_prints_status_lines_when_stderr_is_no_terminal(tmp_path: Path) -> None:
    """`arena sim` printed nothing until it finished when its output was not a terminal."""
    result = arena(
        "sim",
        "fish",
        "--strategies",
        "random,greedy",
        "--matches",
        "6",
        "--workers",
        "1",
        cwd=tmp_path,
    )
    assert result.returncode == 0
    status = result.stderr.splitlines()
    assert status[0] == "fish random,greedy: 0/6 matches"
    assert status[-1].startswith("fish random,greedy: 6/6 matches, ")
    assert "matches/s" in status[-1]


def test_make_says_so_before_installing() -> None:
    """`make run` said nothing during its minute of installing."""
    argv = ["make", "--no-print-directory", "-n", "-W", "pyproject.toml", ".venv/.installed"]
    result = run(argv, ROOT, env={"MAKEFLAGS": "", "MAKELEVEL": ""})  # also under `make test`
    assert result.returncode == 0
    first = result.stdout.splitlines()[0]
    assert "installing the project" in first
    assert first.endswith(">&2")
    # Then pip names each package as it gets to it: the minute is not silent.
    install = next(line for line in result.stdout.splitlines() if "-e '.[test]'" in line)
    assert "--quiet" not in install


def test_status_lines_come_every_few_seconds_with_rate_and_eta() -> None:
    """Off a terminal: a line at the first call, then none until the interval has passed, and
    always one for the last match; the rate counts only matches played in this run."""
    import io

    from sim.progress import StatusLines

    now = [100.0]
    stream = io.StringIO()
    status = StatusLines("fish a,b", stream, interval=5.0, clock=lambda: now[0])
    status(10, 100)  # 10 read back from a journal
    for done, at in [(20, 102.0), (30, 104.9), (40, 106.0), (50, 108.0), (100, 109.0)]:
        now[0] = at
        status(done, 100)
    assert stream.getvalue().splitlines() == [
        "fish a,b: 10/100 matches",
        "fish a,b: 40/100 matches, 5.0 matches/s, elapsed 0m06s, eta 0m12s",
        "fish a,b: 100/100 matches, 10.0 matches/s, elapsed 0m09s",
    ]


def test_the_eta_holds_from_the_first_estimate_with_parallel_workers() -> None:
    """The Penguins sim once predicted 1m25s and took 2m52s: its rate was measured from the
    first finished match, which drops the time both workers spent on their first match, so it
    came out about twice too high. Here two workers play 2 s matches (one finishing 0.1 s after
    the other) on a fake clock: it gives no estimate before three matches are played; from its
    first on, it never predicts the end more than 1% early (the old one said about half the
    time), and once a quarter of the run is played it is within 10% of the true end."""
    from sim.progress import RateEstimate

    now = [50.0]
    estimate = RateEstimate(clock=lambda: now[0])
    total = 40
    estimate.update(0)  # the run begins
    finishes = sorted(50.0 + 2.0 * (n // 2 + 1) + 0.1 * (n % 2) for n in range(total))
    predicted = []
    for done, at in enumerate(finishes, start=1):
        now[0] = at
        estimate.update(done)
        left = estimate.remaining(done, total)
        if done < 3:
            assert left is None
        elif done < total:
            predicted.append((done, at + left))
    took = finishes[-1] - 50.0
    assert predicted[0][0] == 3
    assert all(finish >= finishes[-1] - 0.01 * took for _, finish in predicted)
    late = [finish for done, finish in predicted if done >= total // 4]
    assert all(abs(finish - finishes[-1]) <= 0.10 * took for finish in late)
