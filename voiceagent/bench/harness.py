"""What every evaluation shares: its config (the model, time caps out of the way), the
local-commands settings to run, the LLM server every case reuses, the assistant the front
ends build over a fresh data folder, and the --json file written whole."""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from voiceagent.agent.events import Events
from voiceagent.assistant import Assistant
from voiceagent.config import Config

SETTINGS = {"on": (True,), "off": (False,), "both": (True, False)}
"""The [agent] local_commands values each --local choice runs."""
TURN_SECONDS = 600.0
"""The per-turn time cap while evaluating (at least; half of it for one model request): a
busy machine must not fail a turn."""

LOCAL_LABEL = {True: "on", False: "off", None: "n/a"}
"""How each setting is named in headings, tables and JSON."""


@contextmanager
def fresh_assistant(config: Config, data: Path | None = None, *, today: str = ""
                    ) -> Iterator[tuple[Assistant, Path]]:
    """The assistant the front ends build, over its own data folder (a fresh temporary one
    unless `data` is given): its conversation, lists and timers are only its own. With
    `today` ("2026-12-06") its clock stands at noon that day."""
    from voiceagent.build import build_assistant, build_parts
    from voiceagent.front_end import ASK
    from voiceagent.testing import FakeClock, FakeSynthesizer, RecordingPlayer

    with ExitStack() as stack:
        if data is None:
            data = Path(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="voiceagent-eval-")))
        config = dataclasses.replace(config, paths=dataclasses.replace(config.paths,
                                                                       data_dir=str(data)))
        parts = build_parts(config, stack, front_end=ASK, with_transcriber=False, clock=FakeClock(
            f"{today} 12:00", zone=config.tools.timezone or "UTC")) if today else None
        assistant = build_assistant(config, stack, front_end=ASK, player=RecordingPlayer(),
                                    parts=parts,
                                    events=Events(), synthesizer=FakeSynthesizer(seconds=0.0),
                                    with_transcriber=False, allow_demo=False)
        close = getattr(assistant.agent.model, "close", None)
        if close is not None:  # one HTTP client per assistant: don't leave its socket behind
            stack.callback(close)
        yield assistant, data


def serving(config: Config, stack: ExitStack) -> tuple[Config, Callable[[], None]]:
    """For provider local: a running server (started here if none answers) that every case's
    assistant reuses through [llm] base_url, and a check that restarts it if it died."""
    if config.llm.provider != "local":
        return config, lambda: None
    from voiceagent.llm.discovery import ensure_server

    url, server = ensure_server(config)
    config = dataclasses.replace(config, llm=dataclasses.replace(config.llm, base_url=url))
    if server is None:
        return config, lambda: None
    stack.callback(server.stop)

    def alive() -> None:
        if not server.is_alive():
            server.restart()

    return config, alive


def write_json(json_path: str, data: dict[str, Any]) -> None:
    """Write `data` whole or not at all (a run cut short leaves the last complete file)."""
    path = Path(json_path)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    part.replace(path)


def evaluation_config(config: Config, model: str | None = None) -> Config:
    """The config every evaluation runs with: `model` on our own server if given, and
    correctness judged apart from speed: on a busy machine the per-turn time cap and the
    request timeout would end turns the model gets right (time per turn is reported apart)."""
    if model:
        llm = dataclasses.replace(config.llm, model=model)
        if config.llm.provider == "local":  # our own server for this model, not a running one
            llm = dataclasses.replace(llm, base_url="")
            config = dataclasses.replace(config, server=dataclasses.replace(config.server,
                                                                            port=0))
        config = dataclasses.replace(config, llm=llm)
    return dataclasses.replace(
        config,
        agent=dataclasses.replace(config.agent,
                                  max_seconds=max(config.agent.max_seconds, TURN_SECONDS)),
        llm=dataclasses.replace(config.llm,
                                timeout_s=max(config.llm.timeout_s, TURN_SECONDS / 2)))


def local_settings(config: Config, local: str | None,
                   out: Callable[[str], None] = print) -> tuple[bool | None, ...]:
    """The [agent] local_commands values to run: the config's, or on/off/both."""
    if not hasattr(config.agent, "local_commands"):
        if local is not None:
            out("this build has no local commands: every turn goes to the language model")
        return (None,)
    if local is None:
        return (config.agent.local_commands,)
    return SETTINGS[local]


def with_local(config: Config, setting: bool | None) -> Config:
    """`config` with [agent] local_commands set (None: as it is)."""
    if setting is None:
        return config
    return dataclasses.replace(config, agent=dataclasses.replace(config.agent,
                                                                 local_commands=setting))
