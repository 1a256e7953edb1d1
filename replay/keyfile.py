"""The key a server signs its match logs with: a file of random hex digits, readable by its
owner only, created on first use (docs/log-format.md, "Signed logs")."""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

__all__ = ["KeyFileError", "default_key_path", "key_id", "load_key"]


class KeyFileError(Exception):
    """A key file that cannot be read or made, or holds no key."""


def key_id(key: bytes) -> str:
    """What a log or a seal names a signing key by: not the key, a digest of it."""
    return hashlib.sha256(b"dungeon-arena log key\n" + key).hexdigest()[:16]


def default_key_path(log_dir: Path) -> Path:
    """Beside the log directory, not in it: copying the directory of logs hands out no key."""
    return log_dir.parent / f"{log_dir.name or 'logs'}.key"


def load_key(path: Path, *, create: bool) -> bytes:
    """The key in ``path``; with ``create``, a new one (256 random bits) when there is none,
    written with mode 0600."""
    if create and not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # made meanwhile by another process: read it
        except OSError as error:
            raise KeyFileError(f"log key {path}: cannot create it: {error.strerror}") from None
        else:
            with os.fdopen(descriptor, "w", encoding="ascii") as stream:
                stream.write(secrets.token_hex(32) + "\n")
    try:
        key = path.read_bytes().strip()
    except OSError as error:
        raise KeyFileError(f"log key {path}: cannot read it: {error.strerror}") from None
    if not key:
        raise KeyFileError(f"log key {path}: the file is empty")
    return key
