"""The peer `bench --live --peer VENV` measures voiceagent against: pipecat's local pipeline
(scripts/peer/peer_pipecat.py: Silero VAD + smart-turn v3.2, faster-whisper tiny.en, piper
joe-medium, no tools), run in its own venv (scripts/peer/install.sh) against our own llama.cpp
server, on the same clips and sound devices, one at a time.

It listens to the default source and speaks to the default sink of the sound server the
bench uses (PULSE_SERVER), and logs "PEER READY", "PEER USER @t: 'text'", "PEER LLM first
token @t", "PEER BOT @t: 'text'" with wall-clock times; those place its stages on our clock.
Reply onset is found the same way as voiceagent's: the first sound lasting 0.25 s at the
speaker after the end of the words (onset.reply_onset).
"""

from __future__ import annotations

import ast
import re
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Final, TurnEnd
from voiceagent.bench.capture import RATE, play
from voiceagent.bench.clips import Clip
from voiceagent.bench.live_turn import (
    HEARD_TIMEOUT_S,
    TURN_TIMEOUT_S,
    Rig,
    base_record,
    heard_record,
    wait_quiet,
    words_end,
)
from voiceagent.bench.onset import first_sound, reply_onset
from voiceagent.bench.scoring import verdict
from voiceagent.errors import VoiceAgentError

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "peer" / "peer_pipecat.py"
"""The peer's pipeline, as shared with the issues (a checkout file, not package data)."""
READY_TIMEOUT_S = 180.0
_LINE = re.compile(r"PEER (USER|BOT|LLM first token|TTS started|\w+ "
                   r"User(?:Started|Stopped)SpeakingFrame) @(\d+\.\d+)(?:: (.*))?$")


def peer_python(venv: Path) -> Path | None:
    """The venv's Python, if the peer is installed there (None: skip the peer)."""
    python = venv / "bin" / "python"
    if not python.is_file():
        return None
    done = subprocess.run([str(python), "-c", "import pipecat, piper"], capture_output=True,
                          timeout=120)
    return python if done.returncode == 0 else None


class Peer:
    """One running peer process; its log lines with their times on our monotonic clock."""

    def __init__(self, python: Path, *, whisper_model: Path, piper_voice: Path, llm_url: str,
                 script: Path = SCRIPT, log_path: Path | None = None) -> None:
        if not script.is_file():
            raise VoiceAgentError(f"{script}: the peer's pipeline script is missing")
        self._offset = time.time() - time.monotonic()
        self.lines: list[tuple[float, str, str]] = []
        """(monotonic time, kind, text) of each PEER line."""
        self._tail: deque[str] = deque(maxlen=40)
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._log = open(log_path, "w", encoding="utf-8") if log_path else None  # noqa: SIM115
        self._proc = subprocess.Popen(
            [str(python), str(script), "--whisper-model", str(whisper_model),
             "--piper-voice", str(piper_voice), "--llm-url", llm_url, "--log-level", "INFO"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        self._reader = threading.Thread(target=self._read, name="peer log", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._tail.append(line.rstrip())
            if self._log is not None:
                self._log.write(line)
            if "PEER READY" in line:
                self._ready.set()
            match = _LINE.search(line.rstrip())
            if match is not None:
                kind, stamp, text = match.groups()
                with self._lock:
                    self.lines.append((float(stamp) - self._offset, kind.split()[-1],
                                       _text(text)))

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while not self._ready.wait(0.2):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                raise VoiceAgentError("the peer did not start: " + " | ".join(
                    list(self._tail)[-8:]))

    def after(self, t: float, kind: str = "") -> list[tuple[float, str, str]]:
        with self._lock:
            return [x for x in self.lines if x[0] >= t and (not kind or x[1] == kind)]

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._reader.join(timeout=5)
        if self._proc.stderr is not None:
            self._proc.stderr.close()
        if self._log is not None:
            self._log.close()


def _text(raw: str | None) -> str:
    if not raw:
        return ""
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        return raw.strip()
    return str(value)


def measure_peer(clip: Clip, wav: Path, rig: Rig, peer: Peer) -> dict[str, Any]:
    """Play one clip to the peer and measure its reply as voiceagent's is measured."""
    played = play(wav, rig.feed_sink)
    heard_by = time.monotonic() + HEARD_TIMEOUT_S
    while not peer.after(played, "USER") and time.monotonic() < heard_by:
        time.sleep(0.05)
    if peer.after(played, "USER"):
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while not peer.after(peer.after(played, "USER")[0][0], "BOT") and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the reply's first sentence reaches the speaker
        wait_quiet(rig.speaker)
    end, aligned = words_end(rig, clip, played)
    return {**peer_figures(clip, end, peer.after(played), rig), "aligned": aligned}


def peer_figures(clip: Clip, end: float, lines: list[tuple[float, str, str]],
                 rig: Rig) -> dict[str, Any]:
    """One clip's figures from the peer's log lines and the speaker recording."""
    users = [x for x in lines if x[1] == "USER"]
    record = base_record(clip, "pipecat")
    if not users:
        return {**record, **heard_record(clip, "", ""), "stop": "not_heard", "heard": False,
                "answered": False, "right": None if clip.group != "unanswerable" else False,
                "slots": len(clip.slots), "slots_heard": 0, "slots_missing": list(clip.slots),
                "timings": {}, "stages": {}, "path": "none", "turns": 0}
    first_user = users[0][0]
    bots = [x for x in lines if x[1] == "BOT" and x[0] >= first_user]
    transcript = " ".join(x[2] for x in users if not bots or x[0] <= bots[0][0])
    answer = bots[0][2] if bots else ""

    def since(kind: str) -> float | None:
        hit = next((x[0] for x in lines if x[1] == kind), None)
        return None if hit is None else round(hit - end, 3)

    timings: dict[str, Any] = {"stt_done": round(first_user - end, 3)}
    for kind, key in (("UserStoppedSpeakingFrame", "endpoint"), ("token", "first_token"),
                      ("BOT", "answer_done")):
        value = since(kind)
        if value is not None:
            timings[key] = value
    sound, t_sound = rig.speaker.window(end, time.monotonic())
    first = first_sound(sound, RATE)
    if first is not None:
        timings["first_sound"] = round(t_sound - end + first, 3)
    onset = reply_onset(sound, RATE)
    if onset is not None:
        timings["reply_onset"] = round(t_sound - end + onset, 3)
    events = [Final(answer, "done" if answer else "error"), TurnEnd("done" if answer
                                                                     else "error")]
    judged = verdict(clip, transcript, events)
    return {**record, **heard_record(clip, transcript, answer), **judged, "path": "llm",
            "stop": "done" if answer else "no_reply", "heard": True, "timings": timings,
            "stages": {}, "turns": len(users)}
