"""Device listing and resolution against the private PulseAudio test server."""

from __future__ import annotations

from pathlib import Path

import pytest

from voiceagent.errors import DeviceError
from voiceagent.sound import devices

pytestmark = pytest.mark.audio


def test_pulse_is_reached_through_alsa(pulse):
    names = [d.name for d in devices.list_devices()]
    assert "pulse" in names and "default" in names


@pytest.mark.parametrize("kind", ["input", "output"])
def test_empty_name_is_the_default_device(pulse, kind):
    device = devices.resolve("", kind)
    assert device.name == "default" and device.channels(kind) > 0


def test_name_substring_and_index(pulse):
    by_name = devices.resolve("PULS", "input")
    assert by_name.name == "pulse"
    assert devices.resolve(by_name.index, "output") == by_name
    assert devices.resolve(str(by_name.index), "input") == by_name


@pytest.mark.parametrize("spec", ["USB Headset", 99, "42"])
def test_missing_device_lists_the_available_ones(pulse, spec):
    with pytest.raises(DeviceError) as caught:
        devices.resolve(spec, "input")
    message = str(caught.value)
    assert str(spec) in message
    assert "input devices: 0 'pulse', 1 'default' (default)" in message
    assert "output devices: 0 'pulse', 1 'default' (default)" in message


def test_open_failure_is_a_device_error_not_a_traceback(pulse):
    sd = devices.sounddevice()
    with pytest.raises(DeviceError, match="opening a test stream failed: .*Available input"):
        with devices.portaudio_errors("opening a test stream"):
            sd.InputStream(samplerate=16000, channels=1, device=99)


def test_missing_portaudio_library_names_the_package(tmp_path):
    """Simulated by a `sounddevice` that fails to import the way the real one does."""
    import subprocess
    import sys

    (tmp_path / "sounddevice.py").write_text("raise OSError('PortAudio library not found')\n")
    code = ("from voiceagent.sound import devices\n"
            "try:\n    devices.list_devices()\n"
            "except Exception as exc:\n    print(type(exc).__name__, exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).parents[1]}"}, timeout=60)
    assert done.stdout.startswith("DeviceError cannot use audio devices: PortAudio library "
                                  "not found; install it with `apt install libportaudio2`")
