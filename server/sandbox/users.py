"""A user of its own for each sandboxed program: the uid slots, claimed for as long as the
program runs, and its folder given to it (see :mod:`server.sandbox`)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["SANDBOX_UID", "USER_SLOTS", "prepare_folder", "sandbox_user"]

#: The first of the users (and groups) sandboxed programs run as: each running program has
#: its own, ``SANDBOX_UID + slot`` (:func:`sandbox_user`). The range lies in what systemd's
#: table of user ids leaves unused (0x70000000-0x7FFDFFFF): no account, service or container.
SANDBOX_UID = 2_000_000_000
#: How many programs may run sandboxed at once (on this machine, by all callers).
USER_SLOTS = 4096


def _slot_directory() -> Path:
    """The caller's directory of slot locks (made 0700; refused if someone else made it)."""
    path = Path(tempfile.gettempdir()) / f"arena-sandbox-users-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise OSError(f"{path}: not a private directory of this user: cannot claim a user")
    return path


_next_slot = [random.randrange(USER_SLOTS)]
_slot_lock = threading.Lock()


@contextlib.contextmanager
def sandbox_user() -> Iterator[int]:
    """A user id of its own for one program, held until the block ends: :data:`SANDBOX_UID`
    plus a free slot (0 to :data:`USER_SLOTS` - 1). A slot is an ``flock`` on a file of
    :func:`_slot_directory`, so programs started by other processes at the same moment (two
    tournaments, a game master) never share one, and the kernel releases it if the caller
    dies. Slots are handed out in turn, not lowest first, so a uid is not reused while the
    processes of the program that had it are still being torn down."""
    directory = _slot_directory()
    with _slot_lock:
        first = _next_slot[0]
        for step in range(USER_SLOTS):
            slot = (first + step) % USER_SLOTS
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            descriptor = os.open(directory / f"slot-{slot}", flags, 0o600)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(descriptor)
                continue
            _next_slot[0] = (slot + 1) % USER_SLOTS
            break
        else:
            raise OSError(f"all {USER_SLOTS} sandbox users are in use")
    try:
        yield SANDBOX_UID + slot
    finally:
        os.close(descriptor)  # (releases the lock)


def prepare_folder(folder: Path, uid: int = SANDBOX_UID) -> None:
    """Make ``folder`` (and what is in it) user ``uid``'s, when the caller is root."""
    if os.geteuid() != 0 or not hasattr(os, "lchown"):
        return
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)
