"""Hostile uploads: each refused with one line naming the problem, nothing written outside the
fresh folder, and a refused upload leaves no folder behind."""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.ladder.db import LadderError
from server.ladder.unpack import Bounds, receive, unpack

SMALL = Bounds(upload_bytes=1 << 20, unpacked_bytes=2 << 20, files=20)


def _zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def _refused(source: Path, tmp_path: Path, message: str, bounds: Bounds = SMALL) -> str:
    out = tmp_path / "out"
    with pytest.raises(LadderError) as caught:
        unpack(source, out, bounds)
    text = str(caught.value)
    assert message in text
    assert "\n" not in text
    assert not out.exists()
    return text


def test_a_zip_a_folder_and_a_file_unpack_with_their_bits(tmp_path: Path) -> None:
    """The three shapes of a submission; executable bits kept, sizes counted."""
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("src/main.py", "print(1)\n")
        info = zipfile.ZipInfo("run.sh")
        info.external_attr = (stat.S_IFREG | 0o755) << 16
        z.writestr(info, "#!/bin/sh\n")
    assert unpack(archive, tmp_path / "a", SMALL) == (2, 19)
    assert (tmp_path / "a" / "src" / "main.py").read_text() == "print(1)\n"
    assert os.access(tmp_path / "a" / "run.sh", os.X_OK)
    assert unpack(tmp_path / "a", tmp_path / "b", SMALL) == (2, 19)
    assert unpack(tmp_path / "a" / "run.sh", tmp_path / "c", SMALL) == (1, 10)
    assert os.access(tmp_path / "c" / "run.sh", os.X_OK)


def test_a_zip_bomb_stops_at_the_limit_counted_by_bytes_written(tmp_path: Path) -> None:
    """A 40 MiB file of zeros zipped to a few tens of KiB: refused once 2 MiB are written,
    whatever the archive's headers claim."""
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z, z.open("zeros", "w") as out:
        for _ in range(40):
            out.write(bytes(1 << 20))
    assert bomb.stat().st_size < 200_000
    _refused(bomb, tmp_path, "bomb.zip: more than 2 MiB once unpacked")


def test_a_zip_bomb_whose_headers_lie_is_caught_too(tmp_path: Path) -> None:
    """The entry's declared size rewritten to 10 bytes: the count of bytes written still
    stops it (or the archive's own check refuses the mismatch)."""
    bomb = _zip(tmp_path / "liar.zip", {"zeros": bytes(8 << 20)})
    data = bytearray(bomb.read_bytes())
    size = (8 << 20).to_bytes(4, "little")
    for start in range(len(data) - 4):
        if data[start : start + 4] == size:
            data[start : start + 4] = (10).to_bytes(4, "little")
    bomb.write_bytes(bytes(data))
    text = _refused(bomb, tmp_path, "liar.zip")
    assert "once unpacked" in text or "zeros" in text


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../evil.py", "entry '../evil.py' leaves its folder"),
        ("a/../../evil.py", "leaves its folder"),
        ("/etc/evil.py", "entry '/etc/evil.py' is an absolute path"),
        ("C:/evil.py", "is an absolute path"),
        ("..\\evil.py", "a name with NUL or a backslash"),
    ],
)
def test_a_path_traversal_zip_writes_nothing_outside(
    name: str, message: str, tmp_path: Path
) -> None:
    archive = _zip(tmp_path / "trav.zip", {"ok.py": b"x", name: b"pwned"})
    _refused(archive, tmp_path, message)
    assert not (tmp_path / "evil.py").exists()
    assert not Path("/etc/evil.py").exists()


def test_links_are_refused_in_folders_and_archives(tmp_path: Path) -> None:
    """A symbolic link in a folder, as the submission itself, or in a zip; a hard link."""
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "client.py").write_text("x")
    (folder / "passwd").symlink_to("/etc/passwd")
    _refused(folder, tmp_path, "prog: passwd is a link")
    (folder / "passwd").unlink()
    (folder / "sub").symlink_to("/etc")
    _refused(folder, tmp_path, "prog: sub is a link")
    (folder / "sub").unlink()
    os.link(folder / "client.py", folder / "hard.py")
    _refused(folder, tmp_path, "is a hard link")
    (tmp_path / "alias").symlink_to(folder)
    _refused(tmp_path / "alias", tmp_path, "alias: a link")
    archive = tmp_path / "link.zip"
    with zipfile.ZipFile(archive, "w") as z:
        info = zipfile.ZipInfo("passwd")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(info, "/etc/passwd")
    _refused(archive, tmp_path, "link.zip: entry 'passwd' is a link")


def test_a_huge_upload_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 1 GB file (sparse: it costs no disk) is refused by its size, unread; a streamed 1 GB
    upload is refused as soon as it passes the limit: 17 chunks of 1 MiB read, not 1024."""
    huge = tmp_path / "huge.zip"
    with huge.open("wb") as out:
        out.truncate(1 << 30)
    _refused(huge, tmp_path, "huge.zip: larger than 16 MiB", Bounds())
    read = 0

    def upload() -> Iterator[bytes]:
        nonlocal read
        for _ in range(1024):
            read += 1
            yield bytes(1 << 20)

    target = tmp_path / "upload.bin"
    with pytest.raises(LadderError, match=r"^upload: larger than 16 MiB$"):
        receive(upload(), target, 16 << 20)
    assert read == 17
    assert not target.exists()


def test_too_many_files_and_empty_uploads_are_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "many.zip", {f"f{n}.txt": b"x" for n in range(21)})
    _refused(archive, tmp_path, "many.zip: more than 20 files")
    folders = _zip(tmp_path / "dirs.zip", {f"d{n}/": b"" for n in range(21)})
    _refused(folders, tmp_path, "dirs.zip: more than 20 folders")
    empty = _zip(tmp_path / "empty.zip", {})
    _refused(empty, tmp_path, "empty.zip: no file in it")
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"PK\x03\x04 not really")
    _refused(garbage, tmp_path, "garbage.zip: not a zip archive")
    _refused(tmp_path / "missing", tmp_path, "no such file or folder")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _refused(fifo, tmp_path, "neither a file nor a folder")


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"a" * 300: b"x"}, "a name longer than 128 bytes"),
        ({"/".join(["d"] * 40) + "/f": b"x"}, "deeper than 32 folders or longer than 1024 bytes"),
        ({"/".join(["d" * 100] * 12) + "/f": b"x"}, "deeper than 32 folders or longer than 1024"),
        ({"a": b"x", "a/b": b"y"}, "entry 'a/b' clashes with another entry"),
        ({"a/b": b"x", "a": b"y"}, "entry 'a' clashes with another entry"),
    ],
    ids=["long-name", "deep", "long-path", "file-then-folder", "folder-then-file"],
)
def test_names_the_file_system_refuses_are_one_short_line(
    entries: dict[str, bytes], message: str, tmp_path: Path
) -> None:
    """Entries too long, too deep, or a file where a folder is: named (shortened), exit 2,
    never the operating system's error with the scratch folder's path."""
    text = _refused(_zip(tmp_path / "odd.zip", entries), tmp_path, message)
    assert len(text) < 200
    assert str(tmp_path) not in text
