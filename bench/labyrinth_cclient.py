"""Interop: our C client (labyrinth/c_client/client.c), built on the course's C API fetched
with the public server, plays on OUR server (``arena labyrinth serve``). Run through
``python -m bench.labyrinth_interop cclient``; skips when the C API is absent."""

from __future__ import annotations

import collections
import glob
import subprocess
import sys
import tempfile
from pathlib import Path

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


def cclient_run(games: int, cgs_dir: Path, source: Path) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        binary = build(cgs_dir, source, folder)
        if binary is None:
            print(f"skipped: no C API under {cgs_dir} (GameAPI/, Labyrinth/API/)")
            return 0
        rows = []
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
            bad = [
                p for p in glob.glob(str(logs / "games" / "*.jsonl")) if verify(read_game_log(p))
            ]
            count = len(glob.glob(str(logs / "games" / "*.jsonl")))
            rows.append([rules, "logs verified", count, count - len(bad), len(bad), ""])
    columns = ["rules", "opponent", "games", "won", "lost", "C exit != 0"]
    print_table("our C client (course C API) on our server", columns, rows, width=100)
    return 0
