"""Fish against the course's OCaml implementation (StrongerXi/Fish), both ways.

``python -m bench.interop_fish [PEER_DIR]`` (or ``FISH_PEER=PEER_DIR``): the directory of a
built copy, with ``xserver.exe`` and ``xclient.exe``
under ``_build/default/src/test/integration``. Skips (exit 0, one line) when there is none.

1. Ten OCaml clients (names ``OCaml-AI-N``) against ``arena fish serve --names lenient``.
2. ``arena fish clients 10`` against the OCaml server.

Each prints the server's line ``[final winners, failed + cheaters]``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["find_peer", "main", "ocaml_clients_vs_ours", "our_clients_vs_ocaml"]

BUILD = Path("_build/default/src/test/integration")
TIMEOUT = 120.0


def find_peer(given: str | None = None) -> Path | None:
    """The peer's integration build directory, or None when it is not built."""
    root = given or os.environ.get("FISH_PEER")
    if not root:
        return None
    build = Path(root) / BUILD
    if all((build / name).is_file() for name in ("xserver.exe", "xclient.exe")):
        return build
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _arena() -> list[str]:
    found = shutil.which("arena", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "arena"]


def ocaml_clients_vs_ours(build: Path, log_dir: Path) -> tuple[str, str]:
    """(our server's stdout, the OCaml clients' output)."""
    port = _free_port()
    command = [*_arena(), "fish", "serve", "--port", str(port), "--names", "lenient"]
    command += ["--log-dir", str(log_dir), "--log-level", "warning", "--config", "wait=10"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        server.stderr.readline()  # "listening on ..." once the port is bound
        clients = subprocess.run(
            [str(build / "xclient.exe"), "10", str(port), "127.0.0.1"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        out, _ = server.communicate(timeout=TIMEOUT)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    return out.strip(), (clients.stdout + clients.stderr).strip()


def our_clients_vs_ocaml(build: Path) -> tuple[str, str]:
    """(the OCaml server's stdout, our clients' output)."""
    port = _free_port()
    server = subprocess.Popen(
        [str(build / "xserver.exe"), str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        time.sleep(0.5)  # no probe: a connection without a name would hold its sign-up up 10 s
        clients = subprocess.run(
            [*_arena(), "fish", "clients", "10", "--port", str(port), "--strategy", "minimax2"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        out, _ = server.communicate(timeout=TIMEOUT)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    return out.strip(), (clients.stdout + clients.stderr).strip()


def main(argv: list[str]) -> int:
    build = find_peer(argv[0] if argv else None)
    if build is None:
        print("interop_fish: skipped: no OCaml build (give its directory or set FISH_PEER)")
        return 0
    with tempfile.TemporaryDirectory() as logs:
        start = time.perf_counter()
        ours, theirs = ocaml_clients_vs_ours(build, Path(logs))
        first = time.perf_counter() - start
    print(f"10 OCaml clients -> arena fish serve --names lenient: {ours or '(nothing)'}"
          f"  [{first:.1f} s]")  # fmt: skip
    if theirs:
        print(f"  OCaml clients said: {theirs[:300]}")
    start = time.perf_counter()
    server_out, ours_out = our_clients_vs_ocaml(build)
    second = time.perf_counter() - start
    print(f"arena fish clients 10 -> OCaml xserver: {server_out or '(nothing)'}  [{second:.1f} s]")
    for line in ours_out.splitlines():
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
