"""A kiosk that has listened to a room for minutes: are requests still heard whole?

    .venv/bin/python -m tests.measure_vad_drift --limit 40 --lead 120

Each real recording (../shared/speech: the repro clips and every n-th coffee order) follows
`--lead` seconds of ../shared/speech/noise/kitchen.flac at 20, 10 and 5 dB below the words,
with the noise going on under it and 3 s after, and is fed block by block to the real Silero
VAD and the real cutter (config defaults, no drafts), once with the VAD's state kept for the
whole stream (as before `vad.STALE_S`) and once as the VAD is now. A request is heard whole
when one utterance covers its speech (from the first to the last block a fresh VAD scores as
speech on the clean recording, 0.1 s of slack at the start); a false utterance is one cut
from the noise before it. Stream time only: nothing depends on this machine's speed.
"""

from __future__ import annotations

import argparse
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

import voiceagent.speech.vad as vad_module
from tests.measure_real_endpoint import SHARED, _noise, recordings
from voiceagent.audio import STT_RATE, load_audio
from voiceagent.config import Config
from voiceagent.speech.cutter import UtteranceCutter
from voiceagent.speech.vad import BLOCK, SileroVAD

TAIL_S = 3.0
SLACK = int(0.1 * STT_RATE)


@contextmanager
def state_kept(kept: bool) -> Iterator[None]:
    """The VAD as before (its state never cleared within a stream), or as it is now."""
    saved = vad_module._STALE_BLOCKS
    if kept:
        vad_module._STALE_BLOCKS = 10 ** 12
    try:
        yield
    finally:
        vad_module._STALE_BLOCKS = saved


def blocks(samples: np.ndarray) -> np.ndarray:
    n = len(samples) // BLOCK
    return samples[: n * BLOCK].reshape(n, BLOCK)


def speech_span(samples: np.ndarray) -> tuple[int, int, float]:
    """First and last sample of speech by a fresh VAD on the clean recording, its power."""
    with state_kept(False):
        vad = SileroVAD()
        scores = np.array([vad(b) for b in blocks(samples)])
    loud = np.flatnonzero(scores >= 0.5)
    begin, end = int(loud[0] * BLOCK), int((loud[-1] + 1) * BLOCK)
    return begin, end, float(np.mean(samples[begin:end] ** 2))


def in_room(name: str, samples: np.ndarray, power: float, snr: float, lead_s: float
            ) -> tuple[np.ndarray, int]:
    """The lead of noise, the recording and the tail, noise under all of it; where it starts."""
    noise = _noise()
    start = int(lead_s * STT_RATE) // BLOCK * BLOCK
    total = start + len(samples) + int(TAIL_S * STT_RATE)
    offset = zlib.crc32(name.encode()) % len(noise)
    part = np.resize(np.roll(noise, -offset), total)
    mix = part * np.sqrt(power / np.mean(part ** 2) / 10 ** (snr / 10))
    mix[start: start + len(samples)] += samples
    return mix.astype(np.float32), start


def utterances(stream: np.ndarray, cutter_for: Callable[[], UtteranceCutter]
               ) -> list[tuple[int, int]]:
    """(first, last) sample of each utterance the cutter hands over."""
    cutter = cutter_for()
    out = []
    for i, block in enumerate(blocks(stream)):
        utterance = cutter.push(block)
        if utterance is not None:
            end = (i + 1) * BLOCK
            out.append((end - len(utterance.audio.samples), end))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=40, help="coffee orders (evenly spread)")
    parser.add_argument("--lead", type=float, default=120.0, help="seconds of room first")
    parser.add_argument("--snr", default="20,10,5")
    args = parser.parse_args()
    audio = Config().audio

    def cutter_for() -> UtteranceCutter:
        return UtteranceCutter.from_config(SileroVAD(), audio)

    clips = [(name, load_audio(Path(path)).samples) for name, path, _ in
             recordings(args.limit)]
    spans = {name: speech_span(samples) for name, samples in clips}
    print(f"{len(clips)} recordings from {SHARED}, {args.lead:.0f} s of kitchen noise first")
    print("| SNR | VAD state | heard whole | heard at all | false utterances per hour of noise |")
    print("|---|---|---|---|---|")
    for snr in (float(s) for s in args.snr.split(",")):
        for kept in (True, False):
            whole = heard = false = 0
            with state_kept(kept):
                for name, samples in clips:
                    begin, end, power = spans[name]
                    stream, start = in_room(name, samples, power, snr, args.lead)
                    cuts = utterances(stream, cutter_for)
                    first, last = start + begin, start + end
                    whole += any(a <= first + SLACK and b >= last for a, b in cuts)
                    heard += any(b > first and a < last for a, b in cuts)
                    false += sum(b < first for a, b in cuts)
            hours = len(clips) * args.lead / 3600
            label = "kept (before)" if kept else f"cleared after {vad_module.STALE_S:g} s quiet"
            print(f"| {snr:g} dB | {label} | {whole}/{len(clips)} | {heard}/{len(clips)} | "
                  f"{false / hours:.0f} |", flush=True)


if __name__ == "__main__":
    main()
