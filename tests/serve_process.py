"""`arena serve` as a real process on a free loopback port, for end-to-end tests of programs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def arena_serve(log_dir: Path, *extra: str) -> Iterator[int]:
    """Run `arena serve --port 0` (small dungeons, seeded, no optimum checks); yield its port."""
    command = [
        sys.executable,
        "-m",
        "arena.main",
        "serve",
        "--port",
        "0",
        "--check-workers",
        "0",
        "--seed",
        "11",
        "--log-dir",
        str(log_dir),
        "--config",
        "nodes=300",
        "radius=0.11",
        *extra,
    ]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as server:
        assert server.stderr is not None
        try:
            first = json.loads(server.stderr.readline())  # blocks until the server listens
            assert first["event"] == "server_listening", first
            yield int(first["port"])
        finally:
            server.send_signal(signal.SIGTERM)
            server.communicate(timeout=60)
