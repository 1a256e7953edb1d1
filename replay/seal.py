"""Seals: a signature beside a finished file, for the logs and results that carry no chain of
their own (Fish's, the Labyrinth server's and the Penguins master's logs; a tournament's
results). ``FILE.sig`` holds HMAC-SHA256 of the file's bytes under the server's key (the same
key file as the dungeon's signed logs, named by the same key id: replay/keyfile.py), so whoever
holds the file but not the key cannot edit it and sign it again: ``arena replay verify --key KEY
FILE`` tells a genuine file from an edited one.

A file that is still being written is sealed again after each addition (the Labyrinth server's
player logs): the seal always covers the whole file as it stands.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path

from replay.keyfile import key_id

__all__ = ["SealError", "check_seal", "seal", "seal_path"]


class SealError(Exception):
    """A seal that does not match its file (or cannot be read)."""


def seal_path(path: Path) -> Path:
    return path.with_name(path.name + ".sig")


def _mac(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def seal(path: Path, key: bytes) -> None:
    """Write ``path``'s seal (atomically: a reader never sees half of one)."""
    data = path.read_bytes()
    record = {"file": path.name, "bytes": len(data), "key": key_id(key), "hmac": _mac(key, data)}
    target = seal_path(path)
    scratch = target.with_name(target.name + ".tmp")
    scratch.write_text(json.dumps(record) + "\n", encoding="ascii")
    os.replace(scratch, target)


def check_seal(path: Path, key: bytes) -> str:
    """What the seal says of ``path`` under ``key``: a sentence when it is genuine; SealError
    when it is not; "unsealed" when there is none."""
    target = seal_path(path)
    if not target.is_file():
        return "unsealed"
    try:
        record = json.loads(target.read_text(encoding="ascii"))
        given = str(record["hmac"])
        signer = str(record.get("key", "?"))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SealError(f"{target}: not a seal ({error})") from None
    if signer != key_id(key):
        raise SealError(f"{target}: sealed with another key (key {signer}, this one {key_id(key)})")
    if not hmac.compare_digest(given, _mac(key, path.read_bytes())):
        raise SealError(f"{path}: the file was changed after it was sealed")
    return f"seal: genuine, the whole file ({path.stat().st_size} bytes) signed with this key"
