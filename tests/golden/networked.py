"""Recipes of recorded play over real loopback sockets: a Fish tournament of ten clients (three
of them misbehaving) and a Labyrinth server's day (a game against the training player, then a
game between two client programs).

Each recipe runs the installed ``arena`` commands only, so any reshuffle of the packages behind
them is checked. What a recipe keeps is what a user sees: every program's output and ``arena
replay show`` of every log the server wrote, with the clock left out. The order of arrival is
part of the play (it decides seats), so each program starts only once the server has seen the
one before it: the Fish server's sign-up event on its standard error, the Labyrinth lobby's
live events listing the first program as waiting.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import tempfile
import urllib.request
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

__all__ = ["fish_tournament", "labyrinth_day"]

#: A start-of-line time stamp in ``arena replay show``'s output ("   3.655s  "), right-aligned:
#: its leading blanks shrink as the seconds grow past 9.
CLOCK = re.compile(r"^(\s*)(\d+)\.\d+s  ", re.MULTILINE)

#: The Fish tournament's sign-ups in order: (name, misdeed or None).
FISH_ENTRANTS: tuple[tuple[str, str | None], ...] = (
    ("garbagey", "garbage"),
    ("cheater", "double-place"),
    ("hugey", "huge"),
    ("alpha", None),
    ("bravo", None),
    ("charlie", None),
    ("delta", None),
    ("echo", None),
    ("foxtrot", None),
    ("golf", None),
)

#: Seconds any one step of a recipe may take before it is called stuck.
STEP_SECONDS = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def shown(arena: Callable[..., bytes], path: Path, logs: Path) -> str:
    """``arena replay show PATH`` without its time stamps, the scratch folder named ``logs``."""
    text = arena("replay", "show", str(path)).decode().replace(str(logs), "logs")
    return CLOCK.sub(lambda stamp: stamp[1] + " " * (len(stamp[2]) - 1), text)


#: A game's result line in a Fish tournament log shown: a round's games end in any order.
GAME_OVER = re.compile(r"^\s+game \d+\.\d+: ")


def games_sorted(text: str) -> str:
    """``text`` with each run of consecutive game result lines in name order."""
    lines, run, out = text.splitlines(keepends=True), [], []
    for line in [*lines, ""]:
        if GAME_OVER.match(line):
            run.append(line)
            continue
        out += [*sorted(run), line]
        run = []
    return "".join(out)


def logs_shown(arena: Callable[..., bytes], logs: Path) -> str:
    paths = sorted(p for p in logs.rglob("*") if p.is_file() and p.suffix != ".sig")
    return "".join(f"# {p.relative_to(logs)}\n{shown(arena, p, logs)}" for p in paths)


@contextlib.contextmanager
def started(command: list[str], **options: object) -> Iterator[subprocess.Popen[bytes]]:
    with subprocess.Popen(command, **options) as process:  # type: ignore[call-overload]
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
            process.wait(STEP_SECONDS)


def finished(process: subprocess.Popen[bytes]) -> str:
    out, _ = process.communicate(timeout=STEP_SECONDS)
    return out.decode()


def fish_tournament(executable: str, arena: Callable[..., bytes]) -> str:
    """Ten clients sign up one after another to ``arena fish serve`` on a seeded board; the
    record is the server's verdict line, each client's last line and every log shown."""
    with tempfile.TemporaryDirectory() as scratch:
        logs = Path(scratch) / "logs"
        port = str(free_port())
        serve = [executable, "fish", "serve", "--port", port, "--log-dir", str(logs)]
        serve += ["--config", "min_players=10", "max_players=10", "seed=3", "wait=60"]
        serve += ["call_timeout=30"]  # generous: a loaded machine must not change the play
        with started(serve, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as server:
            assert server.stderr is not None
            next(line for line in server.stderr if b"listening on" in line)
            clients = []
            for seed, (name, misdeed) in enumerate(FISH_ENTRANTS, start=1):
                command = [executable, "fish", "clients", "1", "--port", port]
                command += ["--names", name, "--seed", str(seed)]
                if misdeed:
                    command += ["--misbehave", misdeed]
                clients.append(subprocess.Popen(command, stdout=subprocess.PIPE))
                for line in server.stderr:
                    event = json.loads(line) if line.startswith(b"{") else {}
                    if event.get("event") == "fish_signup" and event.get("name") == name:
                        break
            verdict = finished(server)
            sessions = sorted(finished(client) for client in clients)
        shown_logs = games_sorted(logs_shown(arena, logs))
        return f"# server\n{verdict}# clients\n{''.join(sessions)}{shown_logs}"


def lobby_lines(web: str) -> Generator[dict[str, object], None, None]:
    """The Labyrinth lobby's states as its live page receives them."""
    with urllib.request.urlopen(f"http://{web}/events", timeout=STEP_SECONDS) as stream:
        for raw in stream:
            if raw.startswith(b"data:"):
                yield json.loads(raw[5:])


def waiting_names(state: object) -> set[str]:
    """The players a lobby state shows waiting for a game."""
    if isinstance(state, list):
        return set().union(*(waiting_names(item) for item in state))
    if not isinstance(state, dict):
        return set()
    found = {str(state["name"])} if state.get("waiting") and "name" in state else set()
    return found.union(*(waiting_names(value) for value in state.values()))


def labyrinth_day(executable: str, arena: Callable[..., bytes]) -> str:
    """``arena labyrinth serve`` with a fixed seed: ``trainee`` plays the ASTAR training player,
    then ``alice`` (rotator) waits and ``bob`` (astar) arrives; the record is each client's
    output and every game and player log shown."""
    with tempfile.TemporaryDirectory() as scratch:
        logs = Path(scratch) / "logs"
        port, web = str(free_port()), f"127.0.0.1:{free_port()}"
        serve = [executable, "labyrinth", "serve", "--port", port, "--web", web, "--seed", "5"]
        serve += ["--auto-pair", "--move-timeout", "60", "--log-dir", str(logs)]
        connect = [executable, "labyrinth", "connect", "127.0.0.1", port]
        with started(serve, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as server:
            assert server.stdout is not None
            server.stdout.readline()  # "labyrinth server ... on HOST:PORT": it listens
            outputs = []
            trainee = [*connect, "--name", "trainee", "--training", "ASTAR"]
            outputs.append(finished(subprocess.Popen(trainee, stdout=subprocess.PIPE)))
            lobby = lobby_lines(web)
            alice = subprocess.Popen(
                [*connect, "--name", "alice", "--strategy", "rotator"], stdout=subprocess.PIPE
            )
            next(state for state in lobby if "alice" in waiting_names(state))
            lobby.close()
            bob = subprocess.Popen(
                [*connect, "--name", "bob", "--strategy", "astar"], stdout=subprocess.PIPE
            )
            outputs += [finished(alice), finished(bob)]
        names = ("trainee", "alice", "bob")
        record = "".join(f"# {n}\n{o}" for n, o in zip(names, outputs, strict=True))
        return record + logs_shown(arena, logs)
