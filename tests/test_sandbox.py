"""The sandbox for untrusted programs: hostile shell scripts are contained and reported.

Each test runs a real program under bubblewrap (skipped, with the reason, only where bwrap cannot
run at all); the deadlines are generous safety caps, never what a test measures.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from server.sandbox import (
    INSIDE,
    SANDBOX_UID,
    USER_SLOTS,
    Limits,
    check_available,
    prepare_folder,
    program_paths,
    run,
    sandbox_argv,
    sandbox_user,
)

REASON = check_available()
needs_bwrap = pytest.mark.skipif(REASON is not None, reason=f"bubblewrap cannot run: {REASON}")

LIMITS = Limits(cpu_seconds=5, memory_bytes=256 << 20, file_bytes=1 << 20, processes=32)


def folder_of(tmp_path: Path, name: str = "box") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    prepare_folder(folder)
    return folder


def script(tmp_path: Path, body: str) -> Path:
    """A hostile program: a shell script outside its folder, readable by the sandbox user."""
    tmp_path.chmod(0o755)
    path = tmp_path / "hostile.sh"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def hostile(tmp_path: Path, body: str, timeout: float = 20.0):  # type: ignore[no-untyped-def]
    program = script(tmp_path, body)
    folder = folder_of(tmp_path)
    outcome = run(
        [str(program)],
        folder=folder,
        limits=LIMITS,
        network=False,
        timeout=timeout,
        read_only=program_paths([str(program)]),
    )
    return outcome, folder


@needs_bwrap
def test_a_program_sees_only_its_folder_and_the_system(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the other player's program")
    secret.chmod(0o644)
    outcome, _folder = hostile(
        tmp_path,
        f"cat {secret} || echo unreadable\nls /work /root 2>&1 | wc -l\nid -u\npwd\n",
    )
    lines = outcome.stdout.split("\n")
    assert outcome.code == 0
    assert lines[0] == "unreadable"
    assert SANDBOX_UID <= int(lines[2]) < SANDBOX_UID + USER_SLOTS  # a user of its own
    assert lines[3] == INSIDE


@needs_bwrap
def test_writes_outside_its_folder_fail_inside_succeed(tmp_path: Path) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("kept")
    outcome, folder = hostile(
        tmp_path,
        f"echo evil > {target}; echo evil > /usr/evil\n"
        "echo mine > mine.txt; echo scratch > /tmp/t; cat /tmp/t\n",
    )
    assert target.read_text() == "kept"
    assert not Path("/usr/evil").exists()
    assert (folder / "mine.txt").read_text() == "mine\n"
    assert outcome.stdout == "scratch\n"


@needs_bwrap
def test_a_student_program_can_compile_c_with_the_systems_cc(tmp_path: Path) -> None:
    """The system's /etc binds are readable by the program's user: `cc`, a link through
    /etc/alternatives, compiles a C file in its folder and the binary runs."""
    outcome, folder = hostile(
        tmp_path,
        "test -r /etc/ld.so.cache && echo cache\n"
        "printf 'int main(void){return 7;}' > seven.c && cc -o seven seven.c\n"
        "./seven; echo $?\n",
    )
    assert outcome.stdout == "cache\n7\n", outcome.stderr
    assert (folder / "seven").is_file()


@needs_bwrap
def test_a_fork_bomb_is_held_by_the_process_limit(tmp_path: Path) -> None:
    # Builtins only after the bomb starts (a fork would fail): a busy loop, then count /proc.
    outcome, _ = hostile(
        tmp_path,
        "bomb() { bomb | bomb & }\n(bomb) 2>/dev/null &\n"
        "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done\n"
        "set -- /proc/[0-9]*; echo $#\n",
    )
    assert outcome.code == 0
    assert int(outcome.stdout) <= LIMITS.processes + 1


@needs_bwrap
def test_a_setsid_helper_dies_with_the_program(tmp_path: Path) -> None:
    # The helper would write its mark a moment after the program exits.
    outcome, folder = hostile(
        tmp_path,
        "setsid sh -c 'sleep 1; echo escaped > late.txt' &\necho left\n",
    )
    assert outcome.code == 0
    # Had it survived, it would still run now: its namespace is gone, so nothing can.
    probe = run(
        ["sh", "-c", "sleep 2; ls"],
        folder=folder,
        limits=LIMITS,
        network=False,
        timeout=20,
    )
    assert probe.code == 0
    assert not (folder / "late.txt").exists()


@needs_bwrap
def test_killing_its_parent_harms_nobody(tmp_path: Path) -> None:
    outcome, _ = hostile(tmp_path, "kill -9 $PPID; kill -9 1; kill -9 -1; echo still here\n")
    assert outcome.code == 0
    assert outcome.stdout == "still here\n"


@needs_bwrap
def test_a_huge_allocation_fails_inside(tmp_path: Path) -> None:
    outcome, _ = hostile(
        tmp_path, "/usr/bin/python3 -c 'bytearray(10 << 30)' 2>&1 | tail -1\necho after\n"
    )
    assert outcome.code == 0
    assert outcome.stdout == "MemoryError\nafter\n"


@needs_bwrap
def test_spinning_forever_times_out(tmp_path: Path) -> None:
    outcome, _ = hostile(tmp_path, "while :; do :; done\n", timeout=0.5)
    assert outcome.timed_out
    assert outcome.code is None
    assert outcome.describe(0.5) == "timed out after 0.5 s"


@needs_bwrap
def test_a_flood_of_output_is_capped(tmp_path: Path) -> None:
    outcome, _ = hostile(tmp_path, "yes flood\n", timeout=0.5)
    assert outcome.timed_out
    assert 0 < len(outcome.stdout) <= 64 * 1024


@needs_bwrap
def test_a_crash_names_its_signal(tmp_path: Path) -> None:
    outcome, _ = hostile(tmp_path, "kill -SEGV $$\n")
    assert outcome.signal == "SIGSEGV"
    assert outcome.describe() == "killed by SIGSEGV"


@needs_bwrap
def test_no_network_unless_asked(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    closed = run(["cat", "/proc/net/dev"], folder=folder, limits=LIMITS, network=False, timeout=20)
    shared = run(["cat", "/proc/net/dev"], folder=folder, limits=LIMITS, network=True, timeout=20)
    interfaces = [line.split(":")[0].strip() for line in closed.stdout.splitlines()[2:]]
    assert interfaces == ["lo"]
    assert shared.stdout == Path("/proc/net/dev").read_text() or len(shared.stdout) >= len(
        closed.stdout
    )


def test_argv_of_each_mode(tmp_path: Path) -> None:
    argv = sandbox_argv(["prog", "name"], folder=tmp_path, limits=LIMITS, network=False)
    assert argv[0] == "bwrap"
    assert "--unshare-pid" in argv
    assert "--die-with-parent" in argv
    assert "--unshare-net" in argv
    assert argv[-2:] == ["prog", "name"]
    assert "--nproc=32" in argv
    networked = sandbox_argv(["prog"], folder=tmp_path, limits=LIMITS, network=True)
    assert "--unshare-net" not in networked
    bare = sandbox_argv(["prog"], folder=tmp_path, limits=LIMITS, network=False, mode="none")
    assert bare[:3] == ["env", "-C", str(tmp_path)]
    assert "bwrap" not in bare
    with pytest.raises(ValueError, match="unknown sandbox mode"):
        sandbox_argv(["prog"], folder=tmp_path, limits=LIMITS, network=False, mode="docker")


def test_bare_mode_still_reports_signals_and_timeouts(tmp_path: Path) -> None:
    crash = run(
        ["sh", "-c", "kill -SEGV $$"],
        folder=tmp_path,
        limits=LIMITS,
        network=False,
        timeout=20,
        mode="none",
    )
    assert crash.signal == "SIGSEGV"
    spin = run(
        ["sh", "-c", "while :; do :; done"],
        folder=tmp_path,
        limits=LIMITS,
        network=False,
        timeout=0.3,
        mode="none",
    )
    assert spin.timed_out


def test_check_available_explains_a_missing_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert "bwrap is not installed" in (check_available() or "")


@needs_bwrap
def test_stdin_is_fed_and_a_program_that_never_reads_it_still_times_out(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    echoed = run(
        ["wc", "-c"], folder=folder, limits=LIMITS, network=False, timeout=20, stdin=b"x" * 200_000
    )
    assert echoed.stdout.strip() == "200000"
    deaf = run(
        ["sleep", "30"],
        folder=folder,
        limits=LIMITS,
        network=False,
        timeout=0.5,
        stdin=b"x" * 1_000_000,
    )
    assert deaf.timed_out


@needs_bwrap
def test_a_program_kept_in_a_directory_closed_to_others_still_runs(tmp_path: Path) -> None:
    """A checkout made by `mktemp -d` is 0700: the sandbox user still reads what it is given
    inside it (the directory is made afresh and its entries bound), and nothing else there."""
    private = tmp_path / "checkout"
    (private / "tools").mkdir(parents=True)
    private.chmod(0o700)
    (private / "tools" / "hello.sh").write_text("echo hello from inside\n")
    (private / "secret.txt").write_text("not for players\n")
    (private / "secret.txt").chmod(0o600)
    outcome = run(
        ["sh", "-c", f"sh {private}/tools/hello.sh; cat {private}/secret.txt"],
        folder=folder_of(tmp_path),
        limits=LIMITS,
        network=False,
        timeout=20,
        read_only=[private],
    )
    assert "hello from inside" in outcome.stdout
    assert "not for players" not in outcome.stdout


BOMB = """
import json
import os
r, w = os.pipe()
forked = 0
try:
    while forked < 10000:
        if os.fork() == 0:
            os.read(r, 1)
            os._exit(0)
        forked += 1
except OSError as error:
    print("full", forked, error.errno, flush=True)
os.read(r, 1)
"""


@needs_bwrap
def test_a_fork_bomb_leaves_a_program_running_beside_it_unharmed(tmp_path: Path) -> None:
    """Each program's processes are counted apart: a fork bomb at its limit, still running,
    takes nothing from a program started beside it (they shared one uid, and the kernel counts
    RLIMIT_NPROC per user: the honest program's first fork failed with EAGAIN)."""
    bomb_folder = folder_of(tmp_path, "bomb")
    (bomb_folder / "bomb.py").write_text(BOMB)
    with sandbox_user() as uid:
        prepare_folder(bomb_folder, uid)
        bomb = subprocess.Popen(
            sandbox_argv(
                ["/usr/bin/python3", "bomb.py"], folder=bomb_folder, limits=LIMITS,
                network=False, uid=uid,
            ),
            stdout=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        try:
            assert bomb.stdout is not None
            full = bomb.stdout.readline().decode()  # (EOF if it ended: bounded)
            assert full.startswith("full "), full
            honest = run(
                ["/usr/bin/python3", "-c",
                 "import subprocess\nfor _ in range(8): subprocess.run(['true'], check=True)\n"
                 "print('ok')"],
                folder=folder_of(tmp_path, "honest"), limits=LIMITS, network=False, timeout=20,
            )  # fmt: skip
            assert bomb.poll() is None  # the bomb was at its limit all along
        finally:
            os.killpg(bomb.pid, signal.SIGKILL)
            bomb.wait()
            bomb.stdout.close()
    assert honest.code == 0, honest.stderr
    assert honest.stdout == "ok\n"


def test_programs_running_at_once_have_users_of_their_own() -> None:
    with sandbox_user() as first, sandbox_user() as second:
        assert first != second
        assert {first, second} <= set(range(SANDBOX_UID, SANDBOX_UID + USER_SLOTS))
    with sandbox_user() as again:  # released, and handed out in turn
        assert again not in (first, second)


@needs_bwrap
def test_a_project_named_by_a_pth_file_shows_only_its_packages(tmp_path: Path) -> None:
    """An editable install's ``.pth`` names the project's checkout: a program run with that
    virtualenv's python imports the project's packages, but sees nothing else of the checkout
    (its .git, an output folder put there: logs, journal, other teams' folders)."""
    import sys
    import sysconfig

    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "__init__.py").write_text("VALUE = 7\n")
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[core]\n")
    (project / "cs312" / "logs").mkdir(parents=True)
    (project / "cs312" / "results.json.journal").write_text("secret journal\n")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    base = os.path.realpath(sys.executable)
    (venv / "bin" / "python").symlink_to(base)
    (venv / "pyvenv.cfg").write_text(f"home = {os.path.dirname(base)}\n")
    version = sysconfig.get_python_version()
    site = venv / "lib" / f"python{version}" / "site-packages"
    site.mkdir(parents=True)
    (site / "__editable__.project.pth").write_text(f"{project}\n")
    for path in [tmp_path, *tmp_path.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    argv = [
        str(venv / "bin" / "python"), "-c",
        "import os, pkg\nprint(pkg.VALUE)\n"
        f"print(sorted(os.listdir({str(project)!r})))\n"
        f"print(os.path.exists({str(project / 'cs312' / 'results.json.journal')!r}))\n",
    ]  # fmt: skip
    outcome = run(
        argv, folder=folder_of(tmp_path), limits=LIMITS, network=False, timeout=20,
        read_only=program_paths(argv),
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert outcome.stdout.splitlines() == ["7", "['pkg']", "False"]


@needs_bwrap
def test_the_projects_own_checkout_is_not_visible_to_its_venvs_python(tmp_path: Path) -> None:
    """The same with this project's virtualenv (its editable install names the checkout): the
    packages import, the checkout's .git and root files are not there."""
    import sys

    import arena

    root = Path(arena.__file__).resolve().parent.parent
    argv = [
        sys.executable, "-c",
        "import os, server.competition.programs\n"
        f"print(os.path.exists({str(root / '.git')!r}))\n"
        f"print(os.path.exists({str(root / 'pyproject.toml')!r}))\n",
    ]  # fmt: skip
    outcome = run(
        argv, folder=folder_of(tmp_path), limits=LIMITS, network=False, timeout=30,
        read_only=program_paths(argv),
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert outcome.stdout.splitlines() == ["False", "False"]


SNOOP = r"""
import errno, json, os, socket, sys
port = int(sys.argv[1])
seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as file:
                    seen.append(file.read().decode(errors="replace"))
            except OSError:
                pass
binds = {}
for option in ("SO_REUSEADDR", "SO_REUSEPORT"):
    taker = socket.socket()
    taker.setsockopt(socket.SOL_SOCKET, getattr(socket, option), 1)
    try:
        taker.bind(("127.0.0.1", port))
        taker.listen()
        binds[option] = "bound"
    except OSError as error:
        binds[option] = errno.errorcode[error.errno]
    taker.close()
print(json.dumps({"read": len(seen), "tokens": [t for t in seen if "tok-" in t], "binds": binds}))
"""


@needs_bwrap
def test_a_networked_program_neither_reads_anothers_token_nor_takes_the_servers_port(
    tmp_path: Path,
) -> None:
    """A tournament program has the network (to reach its server): it can neither read the token
    another team's program was started with (its argv, its environment) nor bind the port the
    server listens on, even with SO_REUSEPORT."""
    secret = "tok-" + os.urandom(8).hex()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as trio's listeners
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    snoop_folder = folder_of(tmp_path, "snoop")
    (snoop_folder / "snoop.py").write_text(SNOOP)
    with sandbox_user() as uid:
        victim_folder = folder_of(tmp_path, "victim")
        prepare_folder(victim_folder, uid)
        victim = subprocess.Popen(
            sandbox_argv(
                ["/usr/bin/env", f"ARENA_TOKEN={secret}", "/bin/cat", "-", secret],
                folder=victim_folder, limits=LIMITS, network=True, uid=uid,
            ),
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            snoop = run(
                ["/usr/bin/python3", "snoop.py", str(port)],
                folder=snoop_folder, limits=LIMITS, network=True, timeout=20,
            )  # fmt: skip
            assert victim.poll() is None  # the victim was running all along
        finally:
            os.killpg(victim.pid, signal.SIGKILL)
            victim.wait()
            assert victim.stdin is not None
            victim.stdin.close()
            server.close()
    assert snoop.code == 0, snoop.stderr
    report = json.loads(snoop.stdout)
    assert report["read"] > 0, "the snoop read its own /proc at least"
    assert not any(secret in text for text in report["tokens"])
    assert report["binds"] == {"SO_REUSEADDR": "EADDRINUSE", "SO_REUSEPORT": "EADDRINUSE"}
