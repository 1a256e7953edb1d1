"""The one sandbox for untrusted programs (player programs of the course, tournament entries).

    argv = sandbox_argv(["./player", "name"], folder=Path("work/p1"), limits=Limits(),
                        network=False, read_only=program_paths(["./player"]))
    outcome = run(["./player", "name"], folder=..., limits=Limits(), network=False, timeout=2)

A program runs under bubblewrap (``bwrap``, Debian's ``bubblewrap``; ``make bubblewrap``):

* **its own user**: every program running at a given moment has a uid (and gid) of its own,
  :data:`SANDBOX_UID` + a slot claimed for as long as it runs (:func:`sandbox_user`; :func:`run`
  claims one itself). Run by root (a container), bwrap works in privileged mode and ``setpriv``
  drops to that uid inside, after the mounts, with no capabilities, an empty bounding set and
  ``no_new_privs``: the program is a kernel user of its own, so the kernel counts its processes
  (``RLIMIT_NPROC`` counts per user: with one uid for all, one program's fork bomb starved
  every other program running beside it) and denies it every file that is not
  world-readable. Run by anyone else, bwrap creates a user namespace (``--unshare-user --uid N
  --disable-userns``): that uid inside, the caller's outside; the kernel (5.14 and later)
  counts processes per user namespace, each program's apart.
* **only its folder**: ``folder`` is bound read-write at :data:`INSIDE` (``/sandbox``), the
  working directory; the system is read-only (``/usr`` and its ``/bin``, ``/lib*`` links, a
  few files of ``/etc``), ``/tmp`` a private tmpfs of ``4 * file_bytes``, ``/proc`` of its own
  PID namespace, ``/dev`` minimal (null, zero, random, urandom, tty). Paths a program needs to
  start (its executable, interpreter, virtualenv: :func:`program_paths`) are bound read-only at
  their own paths; of a directory a virtualenv's ``.pth`` file names (an editable install's
  checkout), only its packages: never the checkout itself, its ``.git`` or an output folder
  put there. When root, ``folder`` must be the program's user's (the caller chowns it:
  :func:`prepare_folder`).
* **every process dies with it**: a fresh PID namespace with ``--die-with-parent``: when the
  program exits, or the caller kills bwrap, the kernel kills every descendant, a ``setsid`` one
  included. Its parent inside is bwrap's init, which ignores its signals.
* **resource limits**: :class:`Limits`, applied by util-linux ``prlimit`` just before the exec
  (CPU seconds, address space, file size, processes, open files); the wall time is the caller's
  (``timeout`` of :func:`run`).
* **no network** unless ``network=True`` (then it shares the host's network namespace, so a
  server on loopback is reachable); IPC and UTS namespaces are always its own.

``mode="none"`` runs the program bare in ``folder`` with the same rlimits and no isolation at
all, for machines without bwrap; callers warn. :func:`check_available` says why bwrap cannot
run here (or None). An exit status of 128+N from bwrap is reported as signal N, as a shell
does (a program exiting 139 by itself reads as SIGSEGV).

Blocking :func:`run` serves the Penguins game master; async callers spawn ``sandbox_argv``
themselves and kill the process group of bwrap on timeout.

The modules: ``limits`` (:class:`Limits`), ``users`` (the uid slots, :func:`prepare_folder`),
``programs`` (:func:`program_paths`), ``bwrap`` (the command line and the view it builds),
``running`` (:func:`run`, :class:`Outcome`, :func:`check_available`).
"""

from __future__ import annotations

from server.sandbox.bwrap import INSIDE, sandbox_argv
from server.sandbox.limits import Limits
from server.sandbox.programs import program_paths
from server.sandbox.running import OUTPUT_KEPT, Outcome, check_available, run
from server.sandbox.users import SANDBOX_UID, USER_SLOTS, prepare_folder, sandbox_user

__all__ = [
    "INSIDE",
    "OUTPUT_KEPT",
    "SANDBOX_UID",
    "USER_SLOTS",
    "Limits",
    "Outcome",
    "check_available",
    "prepare_folder",
    "program_paths",
    "run",
    "sandbox_argv",
    "sandbox_user",
]
