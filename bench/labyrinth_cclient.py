"""Interop: our C client (client/labyrinth_c/client.c), built on the course's C API fetched
with the public server, plays on OUR server (``arena labyrinth serve``). Run through
``python -m bench.labyrinth_interop cclient``; skips when the C API is absent."""

from __future__ import annotations

import collections
import glob
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import print_table
from bench.labyrinth_interop import free_port, running
from labyrinth.replay import read_game_log, verify

TRAININGS = ["DO_NOTHING", "ASTAR", "PLAY_RANDOM", "PLAY_RANDOM rotate=false", "ROTATOR"]


def build(cgs_dir: Path, source: Path, into: Path) -> Path | None:
    api = [cgs_dir / "GameAPI" / "GameAPI.c", cgs_dir / "Labyrinth" / "API" / "labyrinthAPI.c"]
    if not all(path.exists() for path in api):
        return None
    binary = into / "cclient"
    includes = [f"-I{cgs_dir / 'GameAPI'}", f"-I{cgs_dir / 'Labyrinth' / 'API'}"]
    command = ["gcc", "-std=c99", "-D_GNU_SOURCE", "-w", *includes, "-o", str(binary)]
    subprocess.run([*command, str(source), *map(str, api)], check=True)
    return binary


def _snapshot(web: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=30) as answer:
        page = answer.read().decode()
    found = re.search(r'<script id="initial" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None, "the lobby page carries its snapshot"
    data: dict[str, Any] = json.loads(found[1])
    return data


#: The teacher's credential the bench gives the server it starts (the page's actions need one).
TEACHER_TOKEN = "bench-teacher"


def _post(web: int, path: str, fields: str) -> None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{web}{path}",
        data=fields.encode(),
        headers={"Authorization": f"Bearer {TEACHER_TOKEN}"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()


def tournament_row(binary: Path, folder: Path) -> list[object]:
    """Three C programs play a league created and run phase by phase from the page."""
    port, web = free_port(), free_port()
    server = [sys.executable, "-m", "arena", "labyrinth", "serve", "--port", str(port)]
    server += ["--web", f"127.0.0.1:{web}", "--log-dir", str(folder / "league"), "--seed", "2"]
    server += ["--teacher-token", TEACHER_TOKEN]
    with running(server, port):
        wait_for_port(web)
        _post(web, "/tournament", "name=cup&kind=league")
        programs = [
            subprocess.Popen(
                [str(binary), "127.0.0.1", str(port), f"league{k}", "TOURNAMENT cup", "4"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for k in range(3)
        ]
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            cup = _snapshot(web)["tournaments"][0]
            if cup["finished"]:
                break
            if len(cup["players"]) == 3 and not cup["running"]:
                _post(web, "/tournament/cup/next", "")
            time.sleep(0.2)
        exits = [program.wait(60) for program in programs]
        results = sum(
            line.startswith("RESULT ")
            for p in programs
            for line in (p.communicate()[0] or "").splitlines()
        )
        standings = " ".join(f"{r['player']}:{r['points']}" for r in cup["standings"])
    return [
        "spec",
        f"league of 3 from the page ({standings})",
        results,
        "",
        "",
        sum(e != 0 for e in exits),
    ]


def wait_for_port(port: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def cclient_run(games: int, cgs_dir: Path, source: Path) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        binary = build(cgs_dir, source, folder)
        if binary is None:
            print(f"skipped: no C API under {cgs_dir} (GameAPI/, Labyrinth/API/)")
            return 0
        rows: list[list[object]] = []
        for rules in ("spec", "cgs2017"):
            port = free_port()
            logs = folder / rules
            server = [sys.executable, "-m", "arena", "labyrinth", "serve", "--port", str(port)]
            server += ["--auto-pair", "--rules", rules, "--log-dir", str(logs), "--seed", "1"]
            with running(server, port):
                for index, training in enumerate([*TRAININGS, "(two C clients)"]):
                    tally: collections.Counter[str] = collections.Counter()
                    runs = 2 if training.startswith("(") else 1
                    wait = "" if training.startswith("(") else training
                    programs = [
                        subprocess.Popen(
                            [
                                str(binary),
                                "127.0.0.1",
                                str(port),
                                f"c{index}_{k}",
                                wait,
                                str(games),
                            ],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            text=True,
                        )
                        for k in range(runs)
                    ]
                    for program in programs:
                        out, _ = program.communicate(timeout=600)
                        tally["exit != 0"] += program.returncode != 0
                        for line in out.splitlines():
                            if line.startswith("RESULT "):
                                tally[line.split()[2]] += 1
                    rows.append(
                        [rules, training, tally["won"] + tally["lost"], tally["won"],
                         tally["lost"], tally["exit != 0"]]
                    )  # fmt: skip
            if rules == "spec":
                rows.append(tournament_row(binary, folder))
            # The server's game logs are the shared format (.jsonl.gz), read in either format.
            paths = glob.glob(str(logs / "games" / "*.jsonl*"))
            bad = [p for p in paths if verify(read_game_log(p))]
            count = len(paths)
            rows.append([rules, "logs verified", count, count - len(bad), len(bad), ""])
    columns = ["rules", "opponent", "games", "won", "lost", "C exit != 0"]
    print_table("our C client (course C API) on our server", columns, rows, width=100)
    return 0
