"""Approval by voice in kiosk mode, on the PulseAudio devices with the real models: the kiosk
pauses its microphone while it answers, and must still hear the spoken yes or no."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.test_e2e import REPO, Running, running, write_config  # noqa: F401 (fixture)

pytestmark = [pytest.mark.real, pytest.mark.audio]


@pytest.mark.parametrize("reply,runs", [("Yes, go ahead.", True), ("No, don't.", False)])
def test_a_spoken_answer_decides_an_approval_in_kiosk_mode(
    tmp_path: Path, llm_base_url: str, pulse, speech, running,  # noqa: F811
    reply: str, runs: bool,
) -> None:
    trash = tmp_path / "trash-mark"
    extra = (f'[trigger]\nmode = "kiosk"\n'
             f'[tools]\nmodules = ["{REPO / "tests" / "data" / "approval_tools.py"}"]\n')
    app = Running(write_config(tmp_path, llm_base_url, extra),
                  env={**pulse.env, "VOICEAGENT_TEST_TRASH": str(trash)})
    running.append(app)
    app.wait_for("kiosk mode ready")
    pulse.play_into_mic(speech("Please empty the trash."))
    app.wait_for("listening for yes or no")
    time.sleep(0.3)
    pulse.play_into_mic(speech(reply))
    app.wait_for("approval for empty_trash: heard")
    answer = app.wait_for("answered: ")
    app.wait_for("turn over")
    assert app.stop() == 0
    assert trash.exists() is runs, app.lines
    assert ("The trash is empty." in answer) is runs and ("OK, I won't." in answer) is not runs
