"""Audio devices through sounddevice/PortAudio: list them and resolve the configured one.

Every failure (no PortAudio library, no such device, a PortAudio error while opening) becomes
a DeviceError whose message lists the devices that do exist, never a PortAudio traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

from voiceagent.errors import DeviceError
from voiceagent.sound.bounded import bounded

Kind = Literal["input", "output"]


@dataclass(frozen=True)
class Device:
    """One PortAudio device as the user sees it."""

    index: int
    name: str
    inputs: int
    """Input channels; 0 for a playback-only device."""
    outputs: int
    """Output channels; 0 for a capture-only device."""
    default_rate: float
    """The device's preferred sample rate."""
    is_default_input: bool = False
    is_default_output: bool = False

    def channels(self, kind: Kind) -> int:
        return self.inputs if kind == "input" else self.outputs


def sounddevice() -> ModuleType:
    """Import sounddevice; a missing PortAudio library is a DeviceError naming the package."""
    try:
        import sounddevice as sd
    except OSError as exc:
        raise DeviceError(f"cannot use audio devices: {exc}; install it with "
                          "`apt install libportaudio2` (Debian/Ubuntu/Raspberry Pi OS)") from None
    return sd


def list_devices() -> list[Device]:
    """Every device PortAudio knows, in index order."""
    sd = sounddevice()
    with portaudio_errors("listing audio devices", check_devices=False):
        found = sd.query_devices()
        default_in, default_out = _defaults(sd)
    return [
        Device(i, d["name"], d["max_input_channels"], d["max_output_channels"],
               d["default_samplerate"], i == default_in, i == default_out)
        for i, d in enumerate(found)
    ]


def resolve(spec: str | int, kind: Kind) -> Device:
    """The device for a config value: "" = the default, an index, or a name substring."""
    devices = list_devices()
    usable = [d for d in devices if d.channels(kind) > 0]
    if spec == "" or spec is None:
        for d in usable:
            if d.is_default_input if kind == "input" else d.is_default_output:
                return d
        if usable:
            return usable[0]
        raise DeviceError(f"no {kind} device found. {describe_devices(devices)}")
    if isinstance(spec, int) or str(spec).strip().isdigit():
        index = int(spec)
        match = next((d for d in usable if d.index == index), None)
        if match is None:
            raise DeviceError(f"{kind} device {index} does not exist or has no {kind} channels. "
                              f"{describe_devices(devices)}")
        return match
    wanted = str(spec).lower()
    exact = [d for d in usable if d.name.lower() == wanted]
    partial = [d for d in usable if wanted in d.name.lower()]
    if exact or partial:
        return (exact or partial)[0]
    raise DeviceError(f"no {kind} device matches {spec!r}. {describe_devices(devices)}")


def rescan() -> None:
    """Re-read the device list, which PortAudio takes once at start (for a device plugged back in).

    Only safe while no stream is open; sounddevice has no public call for this.
    """
    sd = sounddevice()

    def reread() -> None:
        with portaudio_errors("re-reading audio devices", check_devices=False):
            sd._terminate()
            sd._initialize()

    bounded(reread, "re-reading audio devices")


def describe_devices(devices: list[Device] | None = None) -> str:
    """A one-paragraph list of input and output devices for error messages and `devices`."""
    try:
        devices = list_devices() if devices is None else devices
    except DeviceError as exc:
        return str(exc)
    parts = []
    for kind in ("input", "output"):
        names = [f"{d.index} {d.name!r}" + (" (default)" if _is_default(d, kind) else "")
                 for d in devices if d.channels(kind) > 0]  # type: ignore[arg-type]
        parts.append(f"{kind} devices: {', '.join(names) if names else 'none'}")
    hint = "" if any(d.inputs or d.outputs for d in devices) else (
        " (no sound server or sound card is reachable: is PulseAudio/PipeWire running?)")
    return "Available " + "; ".join(parts) + hint + "."


@contextmanager
def portaudio_errors(doing: str, *, check_devices: bool = True) -> Iterator[None]:
    """Turn a PortAudio error raised while `doing` something into a DeviceError."""
    sd = sounddevice()
    try:
        yield
    except sd.PortAudioError as exc:
        listing = describe_devices() if check_devices else ""
        raise DeviceError(f"{doing} failed: {_reason(exc)}. {listing}".strip()) from None


def _reason(exc: Exception) -> str:
    args = getattr(exc, "args", ())
    return str(args[0]) if args else str(exc)


def _defaults(sd: ModuleType) -> tuple[int, int]:
    try:
        default_in, default_out = sd.default.device
    except (TypeError, ValueError):
        return -1, -1
    return int(default_in), int(default_out)


def _is_default(device: Device, kind: str) -> bool:
    return device.is_default_input if kind == "input" else device.is_default_output
