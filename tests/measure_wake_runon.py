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
from voiceagent.config import Config, config_from_dict
from voiceagent.modes import wake_gate
from voiceagent.sound.recorder import MicRecorder
from voiceagent.speech.drafts import Drafts
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
                 drafts: Callable[[], Drafts] | None) -> None:
        self.config = config_from_dict({"trigger": {"mode": "kiosk", "wake_word": wake_word}})
        self._transcribe = transcribe
        self._drafts = drafts

    def hear(self, audio: Audio, *, wake: bool = True) -> Heard:
        config = self.config if wake else replace(
            self.config, trigger=replace(self.config.trigger, wake_word=""))
        stop = threading.Event()
        source = FakeBlockSource(Audio.silence(1.0), audio, Audio.silence(3.0), done=stop)
        mic = MicRecorder(config.audio, source=lambda paused: source)
        drafts = self._drafts() if self._drafts is not None and self._transcribe else None
        mic.drafts = drafts
        gate = wake_gate(config, mic) if wake else None
        if gate is not None:
            mic.processors.append(gate)
        heard = Heard(0)
        for utterance in mic.utterances(stop):
            if gate is not None:
                gate.close()  # as the kiosk does
            if drafts is not None:
                heard.texts.append(drafts.transcribe(utterance).text)
            elif self._transcribe is not None:
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


def run_on(kiosk: Kiosk, wakes: list[Clip], reqs: list[Clip], gaps: tuple[float, ...],
           hearing: bool, show: bool = False) -> None:
    name = kiosk.config.trigger.wake_word
    pairs = [(w, reqs[(i * 7) % len(reqs)]) for i, w in enumerate(wakes)]
    alone = [kiosk.hear(concat([w.audio, Audio.silence(1.0)])).wakes > 0 for w, _ in pairs]
    reference: dict[str, str] = {}
    if hearing:
        for _w, r in pairs:
            if r.name not in reference:
                texts = kiosk.hear(Audio(r.samples[max(0, r.start - 8000):], STT_RATE),
                                   wake=False).texts
                reference[r.name] = texts[0] if texts else ""
    print(f"\n### {name}: {len(pairs)} wake word clips, each glued to a request\n")
    print(f"Woken by the wake word alone: {sum(alone)}/{len(alone)} = "
          f"{sum(alone) / len(alone):.1%}\n")
    if hearing:
        ok = [r.name for _w, r in pairs if whole(reference[r.name], slots(r),
                                                 (words(reference[r.name]) or [""])[0], name)]
        print(f"Requests heard whole without a wake word: "
              f"{sum(1 for _w, r in pairs if r.name in ok)}/{len(pairs)}\n")
        print("| gap | woke | heard whole (of those whole alone) | woke and whole "
              "| wake word in the transcript | first word lost |")
        print("|---|---|---|---|---|---|")
    else:
        print("| gap | woke |")
        print("|---|---|")
    for gap in gaps:
        woke = whole_n = counted = leaked = lost = 0
        for w, r in pairs:
            audio, _end, _onset = glue(w, r, gap)
            heard = kiosk.hear(audio)
            woke += heard.wakes > 0
            if not hearing:
                continue
            ref = reference[r.name]
            if r.name not in ok:
                continue
            counted += 1
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
        n = len(pairs)
        if hearing:
            print(f"| {gap:.2f} s | {woke / n:.1%} | {whole_n}/{counted} = "
                  f"{whole_n / max(1, counted):.1%} | {whole_n / max(1, counted) * woke / n:.1%} "
                  f"| {leaked} | {lost} |", flush=True)
        else:
            print(f"| {gap:.2f} s | {woke / n:.1%} |", flush=True)


def false_wakes(names: list[str]) -> None:
    from voiceagent.speech.wakeword import WakeWord

    files = shared("commands") + shared("wake/jarvis") + shared("wake/computer")
    stream = np.concatenate([load(p).samples for p in files])
    hours = len(stream) / STT_RATE / 3600
    print(f"\n### False wakes over {hours * 60:.1f} min of real speech that is not the wake "
          f"word ({len(files)} recordings: commands, \"jarvis\", \"computer\")\n")
    print("| wake word | wakes | per hour |")
    print("|---|---|---|")
    for name in names:
        wake = WakeWord(name)
        fired = sum(wake(stream[i:i + 512]) for i in range(0, len(stream), 512))
        print(f"| {name} | {fired} | {fired / hours:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wake-word", nargs="+",
                        default=["alexa", "hey_jarvis", "okay_nabu", "hey_mycroft"])
    parser.add_argument("--limit", type=int, default=1000, help="wake word clips per word")
    parser.add_argument("--gaps", type=float, nargs="+", default=list(GAPS))
    parser.add_argument("--no-hearing", action="store_true",
                        help="only whether it woke (no Whisper): quick")
    parser.add_argument("--no-drafts", action="store_true",
                        help="the fixed silence window instead of drafts")
    parser.add_argument("--only", choices=("run-on", "false-wakes"))
    parser.add_argument("--show", action="store_true", help="print each request not heard whole")
    args = parser.parse_args()
    start = time.monotonic()
    stt = drafts = None
    if not args.no_hearing:
        from voiceagent.intents import LocalCommands
        from voiceagent.speech.stt import WhisperTranscriber
        from voiceagent.tools import ToolContext, build_tools

        config = Config()
        whisper = WhisperTranscriber(config.stt, config.models_dir)
        data = tempfile.mkdtemp(prefix="wake-tools-")
        box = build_tools(config_from_dict({"paths": {"data_dir": data}}),
                          ToolContext(Path(data), "kiosk"))
        local = LocalCommands(box.registry)

        def stt(audio: Audio) -> str:
            return whisper.transcribe(audio).text

        if not args.no_drafts:
            def drafts() -> Drafts:
                return Drafts(whisper, lambda text: local.match(text) is not None)
    if args.only in (None, "run-on"):
        reqs = requests()
        for name in args.wake_word:
            kiosk = Kiosk(name, stt, drafts)
            run_on(kiosk, wake_clips(name, args.limit), reqs, tuple(args.gaps),
                   not args.no_hearing, args.show)
    if args.only in (None, "false-wakes"):
        false_wakes(args.wake_word)
    print(f"\n(measured in {time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
