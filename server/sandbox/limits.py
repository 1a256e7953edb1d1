"""The resource limits of one sandboxed program, applied by util-linux ``prlimit`` just before
the exec (see :mod:`server.sandbox`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed program (``wall_seconds``: the caller's deadline)."""

    cpu_seconds: int = 10
    memory_bytes: int = 1 << 30
    file_bytes: int = 16 << 20
    processes: int = 64
    open_files: int = 64
    wall_seconds: float = 10.0

    def prlimit(self) -> list[str]:
        """The util-linux ``prlimit`` prefix setting these limits (soft = hard)."""
        return [
            "prlimit",
            f"--cpu={self.cpu_seconds}",
            f"--as={self.memory_bytes}",
            f"--fsize={self.file_bytes}",
            f"--nproc={self.processes}",
            f"--nofile={self.open_files}",
            "--core=0",
            "--",
        ]
