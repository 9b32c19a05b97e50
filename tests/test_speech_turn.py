"""The turn model (speech/turn.py): its input is what pipecat feeds smart-turn, and it runs.

The reference values in tests/data/smart_turn_reference.* were computed once with pipecat
1.14.0's own feature extractor and the model on its features
(tests/data/make_smart_turn_reference.py says how), on real recordings shorter and longer
than the model's 8 s window.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voiceagent.audio import STT_RATE, Audio, load_audio
from voiceagent.config import Config
from voiceagent.errors import ModelError
from voiceagent.speech.turn import SmartTurn, features, load_turn_model

DATA = Path(__file__).resolve().parent / "data"
REPRO = DATA / "real" / "repro"


def clip(name: str) -> np.ndarray:
    return load_audio(REPRO / f"{name}.flac").samples


def cases() -> dict[str, np.ndarray]:
    """The same inputs make_smart_turn_reference.py used."""
    timer = clip("stp_set_a_timer_for_5_minutes")
    pico = clip("pv_picovoice_make_me_a_large_coffee")
    apples = clip("stp_add_apples_to_my_shopping_list")
    return {"timer_to_2.1s": timer[: int(2.1 * STT_RATE)], "picovoice_whole": pico,
            "all_three_joined": np.concatenate([timer, pico, apples])}


def test_the_features_are_pipecats_to_float32_precision():
    reference = np.load(DATA / "smart_turn_reference.npz")
    for name, samples in cases().items():
        mine = features(samples)
        assert mine.shape == (80, 800) and mine.dtype == np.float32
        np.testing.assert_allclose(mine[:, ::10], reference[name], atol=2e-5, err_msg=name)


def test_only_the_last_8_seconds_count_and_short_audio_is_padded_in_front():
    rng = np.random.default_rng(1)
    tail = (rng.standard_normal(3 * STT_RATE) * 0.1).astype(np.float32)
    long = np.concatenate([(rng.standard_normal(9 * STT_RATE) * 0.1).astype(np.float32), tail])
    np.testing.assert_array_equal(features(long), features(long[-8 * STT_RATE:]))
    padded = np.concatenate([np.zeros(5 * STT_RATE, np.float32), tail])
    np.testing.assert_array_equal(features(tail), features(padded))


@pytest.fixture(scope="module")
def model() -> SmartTurn:
    turn = load_turn_model("smart-turn-v3.2", Config().models_dir)
    assert turn is not None
    return turn


@pytest.mark.real
def test_smart_turn_says_what_it_says_in_pipecat(model: SmartTurn):
    expected = json.loads((DATA / "smart_turn_reference.json").read_text())
    for name, samples in cases().items():
        assert model.finished(Audio(samples, STT_RATE)) == pytest.approx(expected[name],
                                                                         abs=0.01), name


@pytest.mark.real
def test_a_pause_after_the_name_sounds_less_finished_than_after_the_request(model: SmartTurn):
    """The model hears prosody: the real "Picovoice" right after the name (0.2 s of pause)
    is less finished than the whole request 0.2 s after its last word."""
    pico = clip("pv_picovoice_make_me_a_large_coffee")
    name = model.finished(Audio(pico[: int(1.9 * STT_RATE)], STT_RATE))
    whole = model.finished(Audio(pico[: int(4.0 * STT_RATE)], STT_RATE))
    assert 0.0 <= name < whole <= 1.0


def test_no_turn_model_and_a_missing_file_are_told_apart(tmp_path: Path):
    assert load_turn_model("", tmp_path) is None
    with pytest.raises(ModelError, match="turn_model"):
        load_turn_model(str(tmp_path / "missing.onnx"), tmp_path)
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load the turn model"):
        load_turn_model(str(broken), tmp_path)


@pytest.mark.parametrize("cpuinfo, saturates", [
    ("processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2 fma\n", True),  # the EPYC the test failed on
    ("flags\t\t: fpu avx2 avx512f avx512_vnni\n", False),
    ("flags\t\t: fpu avx2 avx_vnni\n", False),
    ("processor\t: 0\nFeatures\t: fp asimd asimddp\n", False),  # a Raspberry Pi: no x86 flags
])
def test_the_int8_fusion_is_off_only_where_it_saturates(tmp_path: Path, cpuinfo, saturates):
    from voiceagent.speech.turn import _saturates

    (tmp_path / "cpuinfo").write_text(cpuinfo)
    assert _saturates(tmp_path / "cpuinfo") is saturates
    assert _saturates(tmp_path / "missing") is False
