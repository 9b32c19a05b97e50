"""Regenerates tests/data/smart_turn_reference.{npz,json}: what pipecat itself feeds smart-turn.

Run once with pipecat-ai 1.14.0's wheel downloaded (never installed), so the tests can check
voiceagent's own features (speech/turn.py) against pipecat's extractor without pipecat:

    .venv/bin/python -m pip download --no-deps -d /tmp/wheel pipecat-ai==1.14.0
    .venv/bin/python tests/data/make_smart_turn_reference.py /tmp/wheel/pipecat_ai-1.14.0-*.whl

It loads pipecat's numpy extractor (`pipecat/audio/turn/smart_turn/_whisper_features.py`) from
the wheel, pads or truncates each clip exactly as `LocalSmartTurnAnalyzerV3._predict_endpoint`
does, and stores every 10th frame of the features and the model's probability on them.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import onnxruntime as ort

from voiceagent.audio import Audio, load_audio
from voiceagent.config import Config
from voiceagent.models import turn_model_path

HERE = Path(__file__).resolve().parent
EXTRACTOR = "pipecat/audio/turn/smart_turn/_whisper_features.py"


def real_clip(name: str) -> Audio:
    return load_audio(HERE / "real" / "repro" / f"{name}.flac")


def cases() -> dict[str, np.ndarray]:
    """The clips the reference covers: shorter than 8 s (padded), and longer (truncated)."""
    timer = real_clip("stp_set_a_timer_for_5_minutes").samples
    pico = real_clip("pv_picovoice_make_me_a_large_coffee").samples
    apples = real_clip("stp_add_apples_to_my_shopping_list").samples
    return {"timer_to_2.1s": timer[: int(2.1 * 16000)], "picovoice_whole": pico,
            "all_three_joined": np.concatenate([timer, pico, apples])}


def pipecat_input(x: np.ndarray) -> np.ndarray:
    """LocalSmartTurnAnalyzerV3._predict_endpoint: the last 8 s, zero-padded at the front."""
    n = 8 * 16000
    return x[-n:] if len(x) > n else np.pad(x, (n - len(x), 0))


def main(wheel: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as archive:
            path = Path(archive.extract(EXTRACTOR, tmp))
        spec = importlib.util.spec_from_file_location("pipecat_features", path)
        assert spec is not None and spec.loader is not None
        extractor = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(extractor)
    session = ort.InferenceSession(str(turn_model_path("smart-turn-v3.2", Config().models_dir)))
    features, probabilities = {}, {}
    for name, samples in cases().items():
        f = extractor.compute_whisper_log_mel_features(pipecat_input(samples), do_normalize=True)
        features[name] = f[:, ::10].astype(np.float32)
        out = session.run(None, {"input_features": f[None].astype(np.float32)})[0]
        probabilities[name] = round(float(np.ravel(out)[0]), 5)
    np.savez_compressed(HERE / "smart_turn_reference.npz", **features)
    (HERE / "smart_turn_reference.json").write_text(json.dumps(probabilities, indent=1) + "\n")
    print(probabilities)


if __name__ == "__main__":
    main(sys.argv[1])
