"""Where the long-running embedded LLM server of a data directory can be found.

`voiceagent run` and `voiceagent server` keep a model loaded for as long as they run. A
one-shot `voiceagent ask` that started a server of its own would wait for the model to load
(seconds, every time) and hold a second copy of it in memory beside the running assistant. So
the long-running ones write `<data_dir>/llm-server.json` (URL, model file, their pid) while
they serve, and `ask` uses that server when it runs the same model file.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Literal

from voiceagent.atomic import write_atomic

log = logging.getLogger(__name__)

FILE_NAME = "llm-server.json"

Share = Literal["", "announce", "reuse"]
"""How a front end shares the embedded server: "announce" the one it starts (it runs on),
"reuse" one a running assistant announced (a one-shot ask), or neither."""


def announce(data_dir: Path, url: str, model: Path) -> None:
    """Say that this process serves `model` at `url` (a failure only costs the reuse)."""
    record = {"url": url, "model": str(Path(model).resolve()), "pid": os.getpid()}
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(data_dir / FILE_NAME, json.dumps(record) + "\n")
    except OSError as exc:
        log.warning("could not write %s: %s (a one-shot ask will load its own model)",
                    data_dir / FILE_NAME, exc)


def withdraw(data_dir: Path) -> None:
    """Take back this process's announcement (someone else's stays)."""
    path = data_dir / FILE_NAME
    if _read(path).get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def announced(data_dir: Path, model: Path) -> str | None:
    """The URL of a server a running process announced for `model`, or None (none, another
    model, or its process is gone)."""
    record = _read(data_dir / FILE_NAME)
    pid, url = record.get("pid"), record.get("url")
    if not isinstance(pid, int) or not isinstance(url, str):
        return None
    if record.get("model") != str(Path(model).resolve()) or not _alive(pid):
        return None
    return url


def _read(path: Path) -> dict[str, object]:
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True
