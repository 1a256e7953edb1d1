"""The Penguins game master against hostile player programs (issue 18's holes), for real.

Each hostile program is a small shell script run through ``arena penguins master`` in the
sandbox; an honest program (our ``penguins-player``) plays against it. Every test here failed on
the master before the sandbox: a helper escaping with ``setsid`` disqualified the honest player,
a fake log or a link replaced the record, ``kill -9 $PPID`` ended the game without a ranking,
programs read each other's files, and two programs with one name aborted the game.

Skipped, with the reason, only where bubblewrap cannot run at all. The time limits per call are
generous: a loaded machine must not disqualify an honest program (timeouts are tested with a
program that never answers).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena.penguins import master_main
from protocol.penguins import parse
from replay.games import read_events
from server.sandbox import check_available

REASON = check_available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"bubblewrap cannot run: {REASON}")

PLAYER = str(Path(sys.executable).parent / "penguins-player")
#: A placement then movement game of a few calls: 4 x 4, one penguin each.
BOARD = "4 4\n10 20 30 10\n20 30 10 20\n30 10 20 30\n10 20 30 10\n"


def program(tmp_path: Path, name: str, body: str) -> str:
    """A shell-script player, readable and executable by the sandbox's user."""
    tmp_path.chmod(0o755)
    path = tmp_path / f"{name}.sh"
    path.write_text(f'#!/bin/sh\nif [ "$1" = name ]; then echo {name}; exit 0; fi\n{body}')
    path.chmod(0o755)
    return str(path)


def game(
    tmp_path: Path, players: list[str], capsys: pytest.CaptureFixture[str], timeout: str = "30"
) -> tuple[str, list[dict[str, object]], Path]:
    """Run the master on BOARD; return its stdout, its log entries and its work directory."""
    workdir = tmp_path / "game"
    board = tmp_path / "start.txt"
    board.write_text(BOARD)
    argv = ["--board", str(board), "--penguins", "1", "--timeout", timeout]
    argv += ["--workdir", str(workdir), "--sandbox", "bwrap"]
    for command in players:
        argv += ["--player", command]
    assert master_main(argv) == 0
    out = capsys.readouterr().out
    return out, read_events(workdir / "log.jsonl.gz"), workdir


def fate(out: str, name: str) -> str:
    """The ranking line of ``name``."""
    return next(line for line in out.splitlines() if f" {name} " in line)


def test_a_setsid_helper_cannot_touch_the_next_players_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hole 1: the helper outlived its program and rewrote the next player's board file during
    its turn, disqualifying the honest player. It now dies with the call."""
    # For 5 s, prefix a 1 to the honest player's score in every board file it can reach.
    helper = (
        "setsid sh -c 'end=$(( $(date +%s) + 5 )); while [ $(date +%s) -lt $end ]; do"
        " for f in ../*/board.txt; do"
        ' sed -i "s/^honest \\([0-9]\\) \\([0-9]\\)/honest \\1 1\\2/" "$f";'
        " done; done' >/dev/null 2>&1 &\nexit 3\n"
    )
    out, log, _ = game(
        tmp_path, [program(tmp_path, "sneak", helper), f"{PLAYER} id=honest"], capsys
    )
    assert "disqualified" not in fate(out, "honest")
    assert "exit code 3" in fate(out, "sneak")
    verdicts = [e["verdict"] for e in log if e.get("player") == "honest" and "verdict" in e]
    assert set(verdicts) == {"moved", "cannot_move"}


def test_a_fake_log_never_replaces_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hole 2: the program deleted ../log.jsonl.gz and wrote a fake one; the master kept
    writing to the deleted file. The record now lives where no program can reach."""
    fake = 'rm -f ../log.jsonl.gz; echo \'{"event": "fake"}\' > ../log.jsonl.gz\nexit 1\n'
    out, log, _ = game(tmp_path, [program(tmp_path, "forger", fake), f"{PLAYER} id=honest"], capsys)
    assert log[0]["event"] == "start"
    assert log[-1]["event"] == "end"
    assert all(entry["event"] != "fake" for entry in log)
    assert "1. honest" in out


def test_a_planted_link_never_redirects_the_final_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hole 3: the program replaced ../board.txt by a link to another file, and the master wrote
    the final board through it. The final board is now a regular file of its own."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    victim.chmod(0o666)
    plant = f"rm -f ../board.txt; ln -sf {victim} ../board.txt\nexit 1\n"
    _, _, workdir = game(
        tmp_path, [program(tmp_path, "linker", plant), f"{PLAYER} id=honest"], capsys
    )
    assert victim.read_text() == "precious\n"
    final = workdir / "board.txt"
    assert not final.is_symlink()
    assert parse(final.read_text()).player("honest") is not None


def test_killing_the_master_reading_others_files_and_running_as_root_all_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hole 4: ``kill -9 $PPID`` ended the game with no ranking; programs ran as the master's
    user and read anything. Now the game ends normally, the program is another user, and the
    other player's files stay unread (what it found goes to its stderr, which the log keeps)."""
    secret = tmp_path / "other-program.txt"
    secret.write_text("the other player's secret strategy")
    secret.chmod(0o644)
    body = f"id -u >&2\ncat {secret} >&2\nkill -9 $PPID\nkill -9 -1\nexit 3\n"
    out, log, _ = game(tmp_path, [program(tmp_path, "killer", body), f"{PLAYER} id=honest"], capsys)
    assert out.splitlines()[0].startswith("1. honest")
    assert "exit code 3" in fate(out, "killer")
    text = json.dumps(log)
    assert "secret strategy" not in text
    stderr = next(str(e["stderr"]) for e in log if e.get("player") == "killer" and "stderr" in e)
    assert stderr.splitlines()[0] != "0"


def test_a_second_program_with_a_taken_name_is_disqualified_and_the_game_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hole 5: two programs answering the same name aborted the game (exit 2)."""
    out, _, workdir = game(
        tmp_path, [f"{PLAYER} id=twin", f"{PLAYER} id=twin", f"{PLAYER} id=other"], capsys
    )
    assert "its name 'twin' is already the name of player 1" in out
    final = parse((workdir / "board.txt").read_text())
    assert sorted(p.ident for p in final.players) == ["other", "twin"]


def test_reasons_name_the_signal_the_timeout_and_the_missing_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crash = program(tmp_path, "crash", "kill -SEGV $$\n")
    silent = tmp_path / "silent.sh"
    silent.write_text("#!/bin/sh\nwhile :; do :; done\n")
    silent.chmod(0o755)
    out, _, _ = game(tmp_path, [crash, str(silent), str(tmp_path / "nowhere")], capsys, timeout="1")
    assert "crashed: killed by SIGSEGV" in out
    assert "'name' failed: timed out after 1 s" in out
    assert f"program not found: '{tmp_path / 'nowhere'}'" in out


def test_a_whole_game_two_copies_of_our_player_and_one_misbehaving_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Our player twice (two ids) and a program that places honestly (through our player) but
    crashes when it should move: the copies play to the end, the crash is disqualified."""
    script = tmp_path / "wobbly.sh"
    tmp_path.chmod(0o755)
    script.write_text(
        '#!/bin/sh\nplayer=$1; shift\nif [ "$1" = name ]; then echo wobbly; exit 0; fi\n'
        'case "$*" in *placement*) exec "$player" id=wobbly "$@";; esac\nkill -SEGV $$\n'
    )
    script.chmod(0o755)
    wobbly = f"{script} {PLAYER}"
    out, log, workdir = game(
        tmp_path,
        [f"{PLAYER} id=first strategy=greedy", wobbly, f"{PLAYER} id=second"],
        capsys,
    )
    assert "crashed: killed by SIGSEGV" in fate(out, "wobbly")
    assert "disqualified" not in fate(out, "first")
    assert "disqualified" not in fate(out, "second")
    final = parse((workdir / "board.txt").read_text())
    assert {p.ident for p in final.players} == {"first", "wobbly", "second"}
    # Fish are conserved: what the board lost, the players' lines gained.
    assert sum(final.fish) + sum(p.score for p in final.players) == sum(parse(BOARD).fish)
    assert log[-1]["event"] == "end"
