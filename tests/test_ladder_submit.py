"""Submissions: each is a new version, unpacked, optionally built in the sandbox, pre-flighted
by the competition's check; only a passing version becomes active, a failing one keeps its
reason and output; bad input is refused with one line and harms nothing."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.tournament.players import PLAYERS
from server.ladder import schema
from server.ladder.db import LadderError
from server.ladder.ladder import Ladder
from server.ladder.receive import receive_version
from server.ladder.roster import parse_roster
from server.ladder.submit import recheck, submit
from tests.tournament_kit import sandbox_mode

ROOT = Path(__file__).resolve().parent.parent
STARTER = ROOT / "docs" / "starters" / "starter.py"
QUITTER = ROOT / "docs" / "examples" / "classes" / "dungeon" / "quitter" / "client.py"
SMALL_DUNGEON = {
    "name": "cs", "game": "dungeon", "match_seconds": 30,
    "config": {"nodes": 300, "radius": 0.1},
}  # fmt: skip


def _ladder(
    folder: Path, db: str | None = None, limits: dict[str, float] | None = None
) -> tuple[Ladder, dict[str, str], str]:
    settings: dict[str, object] = {"tournament": dict(SMALL_DUNGEON)}
    if limits:
        settings["limits"] = limits
    return Ladder.create(
        folder, db, game="dungeon", roster=parse_roster("team\nann\nbob\n"), settings=settings
    )


def _program(folder: Path, client: Path | str, **toml: list[str]) -> Path:
    folder.mkdir(parents=True)
    if isinstance(client, Path):
        shutil.copy(client, folder / "client.py")
    else:
        (folder / "main.c").write_text(client)
    if toml:
        lines = [f"{key} = {json.dumps(value)}" for key, value in toml.items()]
        (folder / "program.toml").write_text("\n".join(lines) + "\n")
    return folder


async def test_only_a_version_that_passes_becomes_active(database_url: str, tmp_path: Path) -> None:
    """The starter passes (active); a program that exits 3 fails its pre-flight (the reason
    and its output kept) and the active version stays; a newer passing one, zipped in a top
    folder, replaces it."""
    ladder, tokens, _ = _ladder(tmp_path / "l", database_url)
    mode = sandbox_mode()
    first = await submit(
        ladder, tokens["ann"], _program(tmp_path / "v1", STARTER), players=PLAYERS, sandbox=mode
    )
    assert (first.number, first.status, first.reason) == (1, "active", None)
    broken = await submit(
        ladder, tokens["ann"], _program(tmp_path / "v2", QUITTER), players=PLAYERS, sandbox=mode
    )
    assert (broken.number, broken.status) == (2, "failed")
    assert broken.reason is not None
    assert broken.reason.startswith("pre-flight: crashed: exit code 3")
    assert "\n" not in broken.reason
    assert "quitter: giving up at once" in broken.preflight_output
    zipped = tmp_path / "v3.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.write(STARTER, "my-bot/client.py")
    third = await submit(ladder, tokens["ann"], zipped, players=PLAYERS, sandbox=mode)
    assert (third.number, third.status) == (3, "active")
    assert third.content_hash == first.content_hash  # the same files, the same content hash
    (ann,) = [team for team in ladder.status()["teams"] if team["team"] == "ann"]
    assert ann["active"] == 3
    assert [(v["number"], v["status"]) for v in ann["versions"]] == [
        (3, "active"),
        (2, "failed"),
        (1, "inactive"),
    ]
    with ladder.engine.connect() as db:
        row = db.execute(
            select(schema.versions).where(schema.versions.c.number == 2)
        ).mappings().one()  # fmt: skip
    assert "quitter" in ladder.store.read(row["preflight_output_hash"]).decode()
    assert json.loads(row["preflight"])["reason"] == "crashed"
    ladder.close()


async def test_a_build_runs_in_the_sandbox_and_its_failure_is_shown(tmp_path: Path) -> None:
    """program.toml's build runs first; a C file that does not compile fails the version with
    the compiler's words in its build output; no pre-flight is played. The team sees it again
    with its token (arena ladder show), the teacher with the admin token, no other team."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc here")
    ladder, tokens, admin = _ladder(tmp_path / "l")
    folder = _program(
        tmp_path / "c", "int main(void) { return nope; }\n",
        build=["gcc", "-o", "bot", "main.c"], command=["./bot", "{host}", "{port}"],
    )  # fmt: skip
    done = await submit(ladder, tokens["bob"], folder, players=PLAYERS, sandbox=sandbox_mode())
    assert done.status == "failed"
    assert done.reason == "build failed: exit code 1"
    assert "nope" in done.build_output
    assert done.build_output.startswith("$ gcc -o bot main.c\n")
    assert done.preflight_output == ""
    assert list(ladder.scratch.iterdir()) == []
    shown = ladder.version_outputs(tokens["bob"])
    assert (shown["number"], shown["status"], shown["reason"]) == (1, "failed", done.reason)
    assert shown["build_output"] == done.build_output
    assert ladder.version_outputs(admin, 1, team="bob") == shown
    with pytest.raises(LadderError, match="its own versions only, not 'bob'"):
        ladder.version_outputs(tokens["ann"], team="bob")
    with pytest.raises(LadderError, match=r"^team 'ann' has no version$"):
        ladder.version_outputs(tokens["ann"])
    with pytest.raises(LadderError, match=r"^team 'bob' has no version 7$"):
        ladder.version_outputs(tokens["bob"], 7)
    with pytest.raises(LadderError, match="name the team"):
        ladder.version_outputs(admin)
    ladder.close()
    cli = subprocess.run(
        [sys.executable, "-m", "arena", "ladder", "show", "--dir", str(tmp_path / "l"),
         "--token", tokens["bob"]],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.startswith("bob version 1: failed: build failed: exit code 1 (sha256 ")
    assert "--- build output ---\n$ gcc -o bot main.c" in cli.stdout


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (["sh", "-c", "sleep 600"], "build: timed out after 1 s (the limit)"),
        (["sh", "-c", "f() { f | f & }; f; sleep 600"], "build: timed out after 1 s (the limit)"),
    ],
    ids=["hangs", "fork-bomb"],
)
async def test_a_build_that_hangs_or_forks_is_stopped(
    build: list[str], reason: str, tmp_path: Path
) -> None:
    """A build past its wall time is killed with every process it started (the sandbox's PID
    namespace); the version fails with the limit as its reason."""
    ladder, tokens, _ = _ladder(tmp_path / "l", limits={"build_seconds": 1})
    folder = _program(tmp_path / "p", STARTER, build=build)
    done = await submit(ladder, tokens["ann"], folder, players=PLAYERS, sandbox=sandbox_mode())
    assert (done.status, done.reason) == ("failed", reason)
    assert list(ladder.scratch.iterdir()) == []
    ladder.close()


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (
            ["sh", "-c", "for n in $(seq 30); do echo > f$n; done"],
            "the build left more than 20 files",
        ),
        (["sh", "-c", "head -c 3000000 /dev/zero > big"], "the build left more than 2 MiB"),
        (["sh", "-c", "ln -s /etc/passwd passwd"], "the build left passwd: not a regular file"),
    ],
    ids=["files", "bytes", "link"],
)
async def test_what_a_build_leaves_is_bounded_like_an_upload(
    build: list[str], reason: str, tmp_path: Path
) -> None:
    """A build cannot grow the store past a submission's own bounds, nor leave a link."""
    ladder, tokens, _ = _ladder(tmp_path / "l", limits={"files": 20, "unpacked_bytes": 2 << 20})
    folder = _program(tmp_path / "p", STARTER, build=build)
    done = await submit(ladder, tokens["ann"], folder, players=PLAYERS, sandbox=sandbox_mode())
    assert (done.status, done.reason) == ("failed", reason)
    ladder.close()


async def test_a_broken_program_file_fails_the_version_with_its_reason(tmp_path: Path) -> None:
    ladder, tokens, _ = _ladder(tmp_path / "l")
    folder = _program(tmp_path / "p", STARTER)
    (folder / "program.toml").write_text("command = 'python3 client.py'\n")
    done = await submit(ladder, tokens["ann"], folder, players=PLAYERS, sandbox=sandbox_mode())
    assert (done.status, done.reason) == (
        "failed",
        "program.toml: command wants a list of non-empty strings",
    )
    ladder.close()


def test_bad_tokens_and_a_frozen_ladder_create_no_version(tmp_path: Path) -> None:
    """A wrong token, the admin token, a frozen ladder, a refused upload: one line each, and no
    version row, no file left in the scratch folder."""
    ladder, tokens, admin = _ladder(tmp_path / "l")
    folder = _program(tmp_path / "p", STARTER)
    with pytest.raises(LadderError, match=r"^wrong token$"):
        receive_version(ladder, "not-a-token", folder)
    with pytest.raises(LadderError, match="the admin token cannot submit"):
        receive_version(ladder, admin, folder)
    (folder / "evil").symlink_to("/etc/passwd")
    with pytest.raises(LadderError, match="p: evil is a link"):
        receive_version(ladder, tokens["ann"], folder)
    (folder / "evil").unlink()
    with ladder.engine.begin() as db:
        db.execute(schema.ladder.update().values(state="frozen"))
    with pytest.raises(LadderError, match="the ladder is frozen"):
        receive_version(ladder, tokens["ann"], folder)
    with ladder.engine.connect() as db:
        assert db.execute(select(schema.versions)).all() == []
    assert list(ladder.scratch.iterdir()) == []
    ladder.close()


def test_kill_9_during_a_submission_loses_no_earlier_one(tmp_path: Path) -> None:
    """``arena ladder submit`` killed (SIGKILL) while its build runs: the earlier version and
    its files are intact, the killed one is recorded as checking, and the next submission
    takes the next number."""
    ladder, tokens, _ = _ladder(tmp_path / "l", limits={"build_seconds": 60})
    earlier = _program(tmp_path / "v1", STARTER, build=["sh", "-c", "exit 4"])
    receive = receive_version(ladder, tokens["ann"], earlier)
    ladder.close()
    fifo = tmp_path / "building"
    os.mkfifo(fifo)
    hanging = _program(
        tmp_path / "v2", STARTER, build=["sh", "-c", f"echo started > {fifo}; sleep 600"]
    )
    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena", "ladder", "submit", "--dir", str(tmp_path / "l"),
             "--token", tokens["ann"], "--sandbox", "none", str(hanging)],
            stdout=subprocess.DEVNULL, stderr=sink, start_new_session=True,
        )  # fmt: skip

    def unblock_if_it_ends() -> None:
        """Should the command end without building, open the FIFO's other end: the read below
        then ends (empty) instead of waiting for ever."""
        process.wait()
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=unblock_if_it_ends, daemon=True).start()
    try:
        with fifo.open() as started:  # returns once the build is running
            assert started.read() == "started\n", errors.read_text()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    again = Ladder.open(tmp_path / "l", None)
    (ann,) = [team for team in again.status()["teams"] if team["team"] == "ann"]
    assert [(v["number"], v["status"]) for v in ann["versions"]] == [
        (2, "checking"),
        (1, "checking"),
    ]
    again.store.checkout(receive.content_hash, tmp_path / "copy")
    assert (tmp_path / "copy" / "client.py").read_bytes() == STARTER.read_bytes()
    third = receive_version(again, tokens["ann"], earlier)
    assert third.number == 3
    again.close()


async def test_recheck_finishes_what_an_interrupted_submission_left(tmp_path: Path) -> None:
    """Versions left checking (recorded, never checked) are checked by the teacher's recheck:
    the admin token only, only those older than --older-than, each recorded with its verdict
    (a broken program.toml read again from the store)."""
    ladder, tokens, admin = _ladder(tmp_path / "l", limits={"build_seconds": 5})
    failing = receive_version(
        ladder, tokens["ann"], _program(tmp_path / "v1", STARTER, build=["sh", "-c", "exit 4"])
    )
    broken = _program(tmp_path / "v2", STARTER)
    (broken / "program.toml").write_text("build = 3\n")
    receive_version(ladder, tokens["bob"], broken)
    with pytest.raises(LadderError, match="recheck needs the admin token"):
        await recheck(ladder, tokens["ann"], older_than=0, players=PLAYERS)
    assert await recheck(ladder, admin, older_than=3600, players=PLAYERS) == []
    done = await recheck(ladder, admin, older_than=0, players=PLAYERS, sandbox=sandbox_mode())
    assert [(d.team, d.number, d.status, d.reason) for d in done] == [
        ("ann", failing.number, "failed", "build failed: exit code 4"),
        ("bob", 1, "failed", "program.toml: build wants a list of non-empty strings"),
    ]
    assert await recheck(ladder, admin, older_than=0, players=PLAYERS) == []
    ladder.close()


@pytest.mark.parametrize("kind", ["traversal", "wrong-token", "bomb"])
def test_a_refused_submission_on_the_command_line_is_one_line_and_exit_2(
    kind: str, tmp_path: Path
) -> None:
    ladder, tokens, _ = _ladder(tmp_path / "l", limits={"unpacked_bytes": 1 << 20})
    ladder.close()
    archive = tmp_path / "up.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("client.py", "print(1)\n")
        if kind == "traversal":
            z.writestr("../../evil.py", "x")
        if kind == "bomb":
            z.writestr("zeros", bytes(4 << 20))
    token = "nope" if kind == "wrong-token" else tokens["ann"]
    done = subprocess.run(
        [sys.executable, "-m", "arena", "ladder", "submit", "--dir", str(tmp_path / "l"),
         "--token", token, "--sandbox", "none", str(archive)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    expected = {
        "traversal": "arena ladder: up.zip: entry '../../evil.py' leaves its folder ('..')",
        "wrong-token": "arena ladder: wrong token",
        "bomb": "arena ladder: up.zip: more than 1 MiB once unpacked",
    }[kind]
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == expected
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "evil.py").exists()


def test_the_command_line_from_a_relative_folder_checks_another_game(tmp_path: Path) -> None:
    """init, submit and status with --dir relative to the working folder, for a Labyrinth
    ladder: the starter client becomes active; the house players only fill the check."""
    (tmp_path / "class.csv").write_text("team\nann\nbob\n")
    (tmp_path / "bot").mkdir()
    shutil.copy(ROOT / "docs" / "starters" / "labyrinth_client.py", tmp_path / "bot" / "client.py")

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", "ladder", *args], cwd=tmp_path,
            capture_output=True, text=True, check=False, timeout=300,
        )  # fmt: skip

    made = arena("init", "--game", "labyrinth", "--roster", "class.csv", "--dir", "lab")
    assert made.returncode == 0, made.stderr
    token = dict(line.split(",") for line in made.stdout.splitlines())["ann"]
    done = arena("submit", "--dir", "lab", "--token", token, "--sandbox", sandbox_mode(), "bot")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ann version 1: active (sha256 ")
    status = json.loads(arena("status", "--dir", "lab", "--json").stdout)
    assert status["ladder"]["game"] == "labyrinth"
    assert [(t["team"], t["active"]) for t in status["teams"]] == [("ann", 1), ("bob", None)]


def test_submissions_at_once_get_distinct_numbers(database_url: str, tmp_path: Path) -> None:
    """Four submissions of one team received at the same moment (threads, separate
    connections): versions 1-4, none lost, none numbered twice (on PostgreSQL the unique
    (team, number) makes the losers of a race take the next number)."""
    from concurrent.futures import ThreadPoolExecutor

    ladder, tokens, _ = _ladder(tmp_path / "l", database_url)
    folders = [_program(tmp_path / f"p{n}", STARTER) for n in range(4)]
    for number, folder in enumerate(folders):
        (folder / "notes.txt").write_text(f"version {number}\n")
    with ThreadPoolExecutor(4) as pool:
        received = list(pool.map(lambda f: receive_version(ladder, tokens["bob"], f), folders))
    assert sorted(r.number for r in received) == [1, 2, 3, 4]
    assert len({r.content_hash for r in received}) == 4
    ladder.close()
