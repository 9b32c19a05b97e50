"""The wake word and the request in one breath, on real recordings: how often the kiosk wakes,
and hears the request whole without the wake word, with 0-1 s between them; and false wakes
per hour of real speech that is not the wake word. Not a test (no assertions); run:

    flock /work/heavy.lock nice .venv/bin/python -m tests.measure_wake_runon [--limit N]

Real "alexa" recordings (../shared/speech/wake/alexa) glued to real requests (commands/ and
repro/, tests/real_speech.py says how) go through the kiosk's own listening side: a
MicRecorder fed by FakeBlockSource with the kiosk's wake gate (modes.wake_gate: the real
pymicro-wakeword and Silero VAD) and drafts (the real Whisper and local commands), as fast as
it reads. The other built-in wake words are said by piper's voice at several rates and
pitches (tests/measure_wakeword.py's speakers) and glued to the same real requests.

- woke: the wake word fired on the glued clip ("alone": the wake recording by itself);
- whole: the first utterance the gate let through holds every slot phrase of the request
  (labels.json; the repro clips' phrases below), its first word is the first word heard from
  the request alone, and the wake word is not in it — counted over the requests whose
  transcript alone (no wake word, no gate) is whole, so Whisper's own mishearings do not count;
- false wakes: the detector over all of commands/, wake/jarvis and wake/computer, one stream.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from tests.fixtures_audio import words
from tests.measure_wakeword import SPEAKERS
from tests.real_speech import Clip, glue, labels, load, shared
from voiceagent.audio import STT_RATE, Audio, concat
from voiceagent.config import Config
from voiceagent.config_file import config_from_dict
from voiceagent.modes import wake_gate
from voiceagent.ports import Transcriber
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.drafts import Drafts
from voiceagent.speech.stt import WhisperTranscriber
from voiceagent.speech.wake_confirm import heard_by
from voiceagent.speech.wakeword import WakeWord
from voiceagent.testing import FakeBlockSource

GAPS = (0.0, 0.15, 0.3, 0.6, 1.0)
REPRO = {"stp_set_a_timer_for_5_minutes.flac": ["set a timer", "five minutes"],
         "stp_add_apples_to_my_shopping_list.flac": ["add apples", "shopping list"],
         "pv_picovoice_make_me_a_large_coffee.flac": ["make me a large coffee"]}
SAID = {"hey_jarvis": "Hey Jarvis.", "okay_nabu": "Okay Nabu.", "hey_mycroft": "Hey Mycroft."}


@dataclass
class Heard:
    """What the kiosk's listening side made of one clip."""

    wakes: int
    texts: list[str] = field(default_factory=list)


class Kiosk:
    """The kiosk's listening side (recorder, wake gate, drafts) over recordings."""

    def __init__(self, wake_word: str, transcribe: Callable[[Audio], str] | None,
                 drafts: Callable[[], Drafts] | None, whisper: Transcriber) -> None:
        self.config = config_from_dict({"trigger": {"mode": "kiosk", "wake_word": wake_word}})
        self._transcribe = transcribe
        self._drafts = drafts
        self._whisper = whisper

    def hear(self, audio: Audio, *, wake: bool = True) -> Heard:
        config = self.config if wake else replace(
            self.config, trigger=replace(self.config.trigger, wake_word=""))
        stop = threading.Event()
        source = FakeBlockSource(Audio.silence(1.0), audio, Audio.silence(3.0), done=stop)
        mic = MicRecorder(config.audio, source=lambda paused: source)
        drafts = self._drafts() if self._drafts is not None and self._transcribe else None
        mic.drafts = drafts
        gate = wake_gate(config, mic, transcriber=self._whisper) if wake else None
        if gate is not None:
            mic.processors.append(gate)
        heard = Heard(0)
        for utterance in mic.utterances(stop):
            if gate is not None:
                gate.close()  # as the kiosk does
            if self._transcribe is not None:  # drafts only judge pauses: never the request
                heard.texts.append(self._transcribe(utterance))
        heard.wakes = gate.wakes if gate is not None else 0
        return heard


def slots(clip: Clip) -> list[str]:
    return REPRO.get(clip.name) or labels().get(clip.name, [])


def has(text: str, phrase: str) -> bool:
    said, want = " ".join(words(text)), " ".join(words(phrase))
    return f" {want} " in f" {said} "


def whole(text: str, phrases: list[str], first: str, wake_name: str) -> bool:
    heard = words(text)
    return (all(has(text, p) for p in phrases) and bool(heard) and heard[0] == first
            and words(wake_name)[-1] not in heard)


def wake_clips(name: str, limit: int) -> list[Clip]:
    """Recordings of the wake word alone: real ones for alexa, piper's for the others."""
    if name == "alexa":
        return [load(p) for p in shared("wake/alexa")][:limit]
    from tests.voices import say
    from voiceagent.audio import write_wav

    out = []
    folder = Path(tempfile.mkdtemp(prefix="wake-said-"))
    for i, speaker in enumerate(SPEAKERS[:limit]):
        path = folder / f"{name}-{i}.wav"
        write_wav(path, say(SAID[name], speaker, lead_s=0.5, tail_s=1.0))
        out.append(load(str(path)))
    return out


def requests() -> list[Clip]:
    return [load(p) for p in shared("repro")] + [load(p) for p in shared("commands")]


def fires(wake: WakeWord, samples: np.ndarray) -> int:
    wake.reset()
    return sum(wake(samples[i:i + 512]) for i in range(0, len(samples), 512))


def detectors(name: str, whisper: Transcriber) -> list[WakeWord]:
    """The model's own rule; with the second look; with speech to text asked about a
    doubtful second look (wake_check "doubtful"); and about every wake ("always")."""
    doubtful, every = WakeWord(name), WakeWord(name, check_every=True)
    for checked in (doubtful, every):
        checked.confirm = heard_by(whisper, checked.name)
    return [WakeWord(name, run_on=False), WakeWord(name), doubtful, every]


DETECTORS = ("the model's rule alone | with the second look | + speech to text on a doubtful "
             "run-on | + speech to text on every wake")


def detection(name: str, pairs: list[tuple[Clip, Clip]], gaps: tuple[float, ...],
              whisper: Transcriber) -> None:
    """How often the detector alone wakes, by each rule."""
    print(f"\n### {name}: woken, {len(pairs)} wake word clips each glued to a request\n")
    print(f"| gap | {DETECTORS} |")
    print("|---|---|---|---|---|")
    rows = [("alone", [concat([w.audio, Audio.silence(1.5)]).samples for w, _r in pairs])]
    rows += [(f"{g:.2f} s", [glue(w, r, g)[0].samples for w, r in pairs]) for g in gaps]
    for label, clips in rows:
        shares = [sum(fires(d, c) > 0 for c in clips) / len(clips)
                  for d in detectors(name, whisper)]
        print(f"| {label} | {' | '.join(f'{x:.1%}' for x in shares)} |", flush=True)


def hearing(kiosk: Kiosk, pairs: list[tuple[Clip, Clip]], gaps: tuple[float, ...],
            show: bool = False) -> None:
    """How often the request is heard whole through the kiosk's listening side."""
    name = kiosk.config.trigger.wake_word
    reference: dict[str, str] = {}
    for _w, r in pairs:
        if r.name not in reference:
            texts = kiosk.hear(Audio(r.samples[max(0, r.start - 8000):], STT_RATE),
                               wake=False).texts
            reference[r.name] = texts[0] if texts else ""
    ok = {r.name for _w, r in pairs
          if whole(reference[r.name], slots(r), (words(reference[r.name]) or [""])[0], name)}
    counted = [(w, r) for w, r in pairs if r.name in ok]
    print(f"\n### {name}: heard whole, {len(counted)} of {len(pairs)} pairs whose request "
          "is heard whole without a wake word\n")
    print("| gap | woke | heard whole | wake word in the transcript | first word lost |")
    print("|---|---|---|---|---|")
    for gap in gaps:
        woke = whole_n = leaked = lost = 0
        for w, r in counted:
            audio, _end, _onset = glue(w, r, gap)
            heard = kiosk.hear(audio)
            woke += heard.wakes > 0
            ref = reference[r.name]
            text = heard.texts[0] if heard.texts else ""
            first = words(ref)[0]
            whole_n += whole(text, slots(r), first, name)
            said = words(text)
            # the wake word, or something heard before the request's first word
            leak = words(name)[-1] in said or (first in said[1:3] and said[0] != first)
            leaked += leak
            lost += bool(heard.texts) and not leak and first not in said[:1]
            if show and not whole(text, slots(r), first, name):
                print(f"    {gap:.2f} s {w.name} + {r.name}: heard {heard.texts!r} (woke "
                      f"{heard.wakes}), alone {ref!r}")
        n = max(1, len(counted))
        print(f"| {gap:.2f} s | {woke / n:.1%} | {whole_n}/{len(counted)} = {whole_n / n:.1%} "
              f"| {leaked} | {lost} |", flush=True)


def live(name: str, pairs: list[tuple[Clip, Clip]], gaps: tuple[float, ...],
         transcribe: Callable[[Audio], str], whisper: Transcriber) -> None:
    """A sample played into the private PulseAudio microphone (tests/pulse.py) and heard by
    the kiosk's recorder with the wake gate: the device path, not FakeBlockSource."""
    import os
    import queue
    import shutil

    from tests.pulse import PulseServer

    root = Path(tempfile.mkdtemp(prefix="wake-live-"))
    server = PulseServer(root)
    server.start()
    os.environ.update(server.env)  # before sounddevice is first imported
    kiosk = Kiosk(name, None, None, whisper)
    mic = MicRecorder(kiosk.config.audio)
    gate = wake_gate(kiosk.config, mic, transcriber=whisper)
    assert gate is not None
    mic.processors.append(gate)
    stop = threading.Event()
    heard: queue.Queue[Audio] = queue.Queue()

    def listen() -> None:
        for utterance in mic.utterances(stop):
            gate.close()
            heard.put(utterance)

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    print(f"\n### {name}, live on the PulseAudio test devices\n")
    print("| gap | request | woke | heard |")
    print("|---|---|---|---|")
    try:
        time.sleep(2.0)
        for gap in gaps:
            for w, r in pairs:
                before = gate.wakes
                server.play_into_mic(concat([glue(w, r, gap)[0], Audio.silence(2.5)]))
                texts = []
                while not heard.empty():
                    texts.append(transcribe(heard.get()))
                print(f"| {gap:.2f} s | {r.name[:24]} | {gate.wakes - before} | {texts} |",
                      flush=True)
    finally:
        stop.set()
        thread.join(timeout=10)
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def false_wakes(names: list[str], whisper: Transcriber) -> None:
    files = shared("commands") + shared("wake/jarvis") + shared("wake/computer")
    stream = np.concatenate([load(p).samples for p in files])
    hours = len(stream) / STT_RATE / 3600
    print(f"\n### False wakes over {hours * 60:.1f} min of real speech that is not the wake "
          f"word ({len(files)} recordings: commands, \"jarvis\", \"computer\"; one stream)\n")
    print(f"| wake word | {DETECTORS} | per hour, the last two |")
    print("|---|---|---|---|---|---|")
    for name in names:
        counts = [fires(d, stream) for d in detectors(name, whisper)]
        print(f"| {name} | {' | '.join(map(str, counts))} | {counts[-2] / hours:.1f} / "
              f"{counts[-1] / hours:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wake-word", nargs="+",
                        default=["alexa", "hey_jarvis", "okay_nabu", "hey_mycroft"])
    parser.add_argument("--limit", type=int, default=1000, help="wake word clips per word")
    parser.add_argument("--gaps", type=float, nargs="+", default=list(GAPS))
    parser.add_argument("--no-hearing", action="store_true",
                        help="only whether it woke (Whisper only for doubtful run-ons): quick")
    parser.add_argument("--no-drafts", action="store_true",
                        help="the fixed silence window instead of drafts")
    parser.add_argument("--only", choices=("run-on", "false-wakes", "live"))
    parser.add_argument("--live", type=int, default=4, help="pairs played live (--only live)")
    parser.add_argument("--show", action="store_true", help="print each request not heard whole")
    parser.add_argument("--hear", type=int, default=1000,
                        help="pairs per wake word also transcribed (Whisper: slow)")
    args = parser.parse_args()
    start = time.monotonic()
    stt = drafts = None
    config = Config()
    whisper = WhisperTranscriber(config.stt, config.models_dir)
    if not args.no_hearing:
        from voiceagent.front_end import KIOSK
        from voiceagent.intents import LocalCommands
        from voiceagent.tools import ToolContext, build_tools

        data = tempfile.mkdtemp(prefix="wake-tools-")
        box = build_tools(config_from_dict({"paths": {"data_dir": data}}),
                          ToolContext(Path(data), KIOSK))
        local = LocalCommands(box.registry)

        def stt(audio: Audio) -> str:
            return whisper.transcribe(audio).text

        if not args.no_drafts:
            def drafts() -> Drafts:
                return Drafts(whisper, lambda text: local.match(text) is not None)
    if args.only in (None, "run-on"):
        reqs = requests()
        for name in args.wake_word:
            wakes = wake_clips(name, args.limit)
            pairs = [(w, reqs[i % len(reqs)]) for i, w in enumerate(wakes)]
            detection(name, pairs, tuple(args.gaps), whisper)
            if not args.no_hearing:
                hearing(Kiosk(name, stt, drafts, whisper), pairs[: args.hear], tuple(args.gaps),
                        args.show)
    if args.only == "live":
        assert stt is not None
        reqs = requests()
        for name in args.wake_word:
            wakes = wake_clips(name, args.live)
            live(name, [(w, reqs[i % len(reqs)]) for i, w in enumerate(wakes)],
                 tuple(args.gaps), stt, whisper)
    if args.only in (None, "false-wakes"):
        false_wakes(args.wake_word, whisper)
    print(f"\n(measured in {time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
