"""Replacing a file so that a crash, a kill -9 or a power cut leaves the old or the new
contents, never a mix: the one way voiceagent writes its files (sessions, timers, lists, the
file tools, assembled models).

The data goes to a temporary file in the same directory (a rename is atomic only within one
file system), which is fsync'd, renamed over the target, and then the directory is fsync'd
so that the rename itself survives a power cut.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def atomic_file(path: Path, mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary file that replaces `path` when the block ends without an exception.

    `mode` gives the permission bits; None keeps those of the file being replaced (0o644 for
    a new file). If the block raises, `path` is untouched and the temporary file removed.
    """
    path = Path(path)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
        fsync_dir(path.parent)
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_atomic(path: Path, data: str | bytes, mode: int | None = None) -> None:
    """Replace `path` with `data` (str is written as UTF-8); see `atomic_file`."""
    with atomic_file(path, mode) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in `path` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
