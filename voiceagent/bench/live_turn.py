"""One played request, measured: where its words end at the microphone, what the kiosk's
turn did (from its events), and when sound came out of the speaker.

Every figure is seconds since the end of the words *at the microphone*: the clip's own end
of words (words.py, found in the file) placed on the microphone recording by
cross-correlation, so the sound server's latency is not counted as the assistant's.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voiceagent.agent.events import Event
from voiceagent.bench.capture import RATE, Capture, play
from voiceagent.bench.clips import Clip
from voiceagent.bench.onset import FRAME_S, LOUD, envelope, first_sound, reply_onset
from voiceagent.bench.report import turn_figures, word_errors, words
from voiceagent.bench.scoring import verdict
from voiceagent.bench.words import align

TURN_TIMEOUT_S = 300.0
"""Longest a request may take from the end of its words to the end of the turn."""
HEARD_TIMEOUT_S = 10.0
"""A request whose turn has not started this long after its words ended was not heard."""
QUIET_S = 0.6
"""Speaker silence that means the reply is over."""


@dataclass
class Rig:
    """Where requests are played and what is recorded: the sound server's devices."""

    feed_sink: str
    """The sink the microphone hears."""
    mic: Capture
    speaker: Capture


class EventClock:
    """Every event with its monotonic time, across turns."""

    def __init__(self) -> None:
        self.events: list[tuple[float, Event]] = []
        self._t0 = 0.0
        self._lock = threading.Lock()
        self.turn_ended = threading.Event()

    def __call__(self, event: Event) -> None:
        with self._lock:
            if event.type == "turn_start":
                self._t0 = time.monotonic() - event.t
            self.events.append((self._t0 + event.t, event))
        if event.type == "turn_end":
            self.turn_ended.set()

    def busy(self) -> bool:
        """A turn has started and not ended (the kiosk is not listening yet)."""
        with self._lock:
            types = [e.type for _at, e in self.events]
        return types.count("turn_start") > types.count("turn_end")

    def turns_after(self, t: float) -> list[tuple[float, list[Event]]]:
        """(monotonic start, events) of each turn that started after `t`."""
        turns: list[tuple[float, list[Event]]] = []
        with self._lock:
            for at, event in self.events:
                if event.type == "turn_start" and at >= t:
                    turns.append((at - event.t, []))
                if turns and at >= turns[-1][0]:
                    turns[-1][1].append(event)
        return turns


def words_end(rig: Rig, clip: Clip, played: float) -> tuple[float, bool]:
    """Monotonic time the clip's words ended at the microphone, and whether the clip was
    found in the microphone recording (else: counted from when it was sent to play)."""
    samples, t_mic = rig.mic.window(played, played + clip.audio.seconds + 1.5)
    offset = align(samples, clip.audio.samples, RATE)
    if offset is None:
        return played + clip.words[1], False
    return t_mic + offset + clip.words[1], True


def wait_quiet(speaker: Capture, limit_s: float = 60.0) -> None:
    """Until the speaker has been silent for QUIET_S (the last words have been played)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        now = time.monotonic()
        recent, _ = speaker.window(now - QUIET_S, now)
        if len(recent) >= 0.8 * QUIET_S * RATE and not (envelope(recent, RATE) > LOUD).any():
            return
        time.sleep(0.1)


def measure_kiosk(clip: Clip, wav: Path, rig: Rig, clock: EventClock) -> dict[str, Any]:
    """Play one clip to the running kiosk and measure its turn (once an earlier turn, if
    one is still running, has ended)."""
    deadline = time.monotonic() + TURN_TIMEOUT_S
    while clock.busy() and time.monotonic() < deadline:
        clock.turn_ended.wait(0.2)
    wait_quiet(rig.speaker)
    clock.turn_ended.clear()
    played = play(wav, rig.feed_sink)
    heard_by = time.monotonic() + HEARD_TIMEOUT_S
    while not clock.turns_after(played) and time.monotonic() < heard_by:
        time.sleep(0.05)
    if clock.turns_after(played):
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while time.monotonic() < deadline and not _all_ended(clock.turns_after(played)):
            clock.turn_ended.wait(0.1)
        wait_quiet(rig.speaker)
    end, aligned = words_end(rig, clip, played)
    return {**kiosk_figures(clip, end, clock.turns_after(played), rig.speaker),
            "aligned": aligned}


def _all_ended(turns: list[tuple[float, list[Event]]]) -> bool:
    return bool(turns) and all(any(e.type == "turn_end" for e in events) for _, events in turns)


def base_record(clip: Clip, system: str) -> dict[str, Any]:
    """The fields every measured clip has, before it is played."""
    return {"clip": clip.name, "group": clip.group, "system": system, "text": clip.text,
            "wake": clip.wake, "gap_s": clip.gap_s,
            "words_s": round(clip.words[1] - clip.words[0], 3)}


def heard_record(clip: Clip, transcript: str, answer: str) -> dict[str, Any]:
    """Transcript-derived fields: word errors (when the text is known), the wake word heard."""
    errors, n_words = word_errors(clip.text, transcript) if clip.text else (0, 0)
    return {"transcript": transcript, "answer": answer, "word_errors": errors,
            "words": n_words, "wake_transcribed": bool(clip.wake) and _contains(transcript,
                                                                                clip.wake)}


def _contains(text: str, phrase: str) -> bool:
    said, want = words(text), words(phrase)
    return any(said[i:i + len(want)] == want for i in range(len(said) - len(want) + 1))


def kiosk_figures(clip: Clip, end: float, turns: list[tuple[float, list[Event]]],
                  speaker: Capture) -> dict[str, Any]:
    """One clip's figures from the kiosk's turns, in seconds since the end of its words."""
    base = base_record(clip, "voiceagent")
    if not turns:
        return {**base, **heard_record(clip, "", ""), "stop": "not_heard", "heard": False,
                "answered": False, "right": None if clip.group != "unanswerable" else False,
                "slots": len(clip.slots), "slots_heard": 0, "slots_missing": list(clip.slots),
                "timings": {}, "stages": {}, "path": "none", "turns": 0}
    t0, events = turns[0]
    shift = t0 - end  # event times count from the cut; ours from the end of the words
    figures = turn_figures(events, t0, [])
    timings = {k: round(v + shift, 3) for k, v in figures["timings"].items()
               if isinstance(v, (int, float))}
    timings["endpoint"] = round(shift, 3)
    stages = {k: [[round(s[0] + shift, 3), round(s[1] + shift, 3), *s[2:]] for s in spans]
              for k, spans in figures["stages"].items()}
    stages["endpoint"] = [[0.0, round(shift, 3)]]
    first_audio = timings.get("first_audio")
    if first_audio is not None and "first_sentence" in timings:  # its synthesis
        stages["tts"] = [[timings["first_sentence"], first_audio]]
    sound, t_sound = speaker.window(end, time.monotonic())
    first = first_sound(sound, RATE)
    if first is not None:
        timings["first_sound"] = round(t_sound - end + first, 3)
    if first_audio is not None:  # the reply, not the chime before it
        from_ = max(0.0, first_audio - 0.15)
        skip = int(from_ * RATE)
        onset = reply_onset(sound[skip:], RATE)
        if onset is not None:
            timings["reply_onset"] = round(t_sound - end + from_ + onset, 3)
            loud = np.flatnonzero(envelope(sound, RATE) > LOUD)
            stages["playback"] = [[timings["reply_onset"],
                                   round(t_sound - end + (loud[-1] + 1) * FRAME_S, 3)]]
    text = next((e.fields.get("text", "") for e in events if e.type == "stt_done"), "")
    answer = next((e.fields.get("text", "") for e in events if e.type == "final"), "")
    stop = next((e.fields.get("stop", "") for e in events if e.type == "turn_end"), "timeout")
    judged = verdict(clip, text, events)
    return {**base, **heard_record(clip, text, answer), **judged, "stop": stop, "heard": True,
            "timings": timings, "stages": stages, "turns": len(turns),
            "llm_first_token_s": figures["llm_first_token_s"],
            "tokens_per_s": figures["tokens_per_s"]}
