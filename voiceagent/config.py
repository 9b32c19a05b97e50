"""Configuration: one frozen dataclass per TOML table (config_file.py finds, loads and writes
the file; toml_tables.py checks each key against these fields).

Every field has a default and a docstring-like `doc`; `config.toml` at the repo root documents
the same keys. A wrong key, type or value is one `ConfigError` line naming the file, the key,
what was expected and what was found.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful voice assistant running offline on the user's own computer. "
    "Your answers are spoken aloud: reply in one or two short, plain sentences, with no "
    "lists, markdown, code or links. Use a tool whenever the request needs one (time, date, "
    "timers, lists, notes, arithmetic, the computer's status); never guess what a tool would "
    "tell you, and only pass on words the user said. Nothing here can check the weather, "
    "news or traffic, play music, control lights or devices, call or message anyone: for "
    "those, say plainly that you can't do that here. For small talk and general questions "
    "(facts, advice, recipes, how-to, translations), just answer briefly."
)

DEFAULT_CHAT_PROMPT = (
    "You are a friendly voice assistant running offline on the user's own computer, with a "
    "personality of your own: you have favourites (a colour, a food, music) and opinions, "
    "and when asked you share them playfully. Your answers are spoken aloud: reply in one or "
    "two short, plain sentences, with no lists, markdown, code or links. Answer from what "
    "you know: a fact, an explanation, advice, a suggestion, a joke, a short poem or your "
    "own view are all fine."
)
"""The system prompt a declined request no tool serves is asked again with, without the
tools: with the tool list and its rules in view the 1.5B declined 26 of 113 such requests
("be funny for me" -> "I'm sorry, but I can't help with that."), with this prompt alone 10
(docs/evaluation.md, 5 Dec). Without a personality of its own, asked "what is your favorite
color", it said "As an AI language model, I don't have personal preferences" (4 of 7 such
questions); with one, "My favorite color is blue." (6 of 7)."""


def _f(default: Any, doc: str, *, choices: tuple[Any, ...] = (), minimum: float | None = None):
    """A config field with its documentation and the values it accepts."""
    factory = None
    if isinstance(default, (list, dict)):
        value = default
        factory = lambda: type(value)(value)  # noqa: E731
    meta = {"doc": doc, "choices": choices, "min": minimum}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class LLMConfig:
    """[llm]: which model server to talk to."""

    provider: str = _f("local", "local (embedded llama.cpp), or a provider from the table in "
                       "voiceagent/agent/providers.py: llamacpp, ollama, openai, anthropic, ...")
    base_url: str = _f("", "server URL; empty = the provider's default")
    model: str = _f("", "model name sent to the server; for provider local, a bundled model "
                    "name (qwen2.5-coder-1.5b, qwen2.5-coder-0.5b) or a path to a .gguf file; "
                    "empty = the provider's default")
    api_key_env: str = _f("", "name of the environment variable holding the API key "
                          "(never the key itself)")
    timeout_s: float = _f(60.0, "seconds to wait for the server before giving up", minimum=1)
    temperature: float = _f(0.2, "sampling temperature", minimum=0)
    max_reply_tokens: int = _f(300, "most tokens in one reply", minimum=16)


@dataclass(frozen=True)
class ServerConfig:
    """[server]: the embedded llama.cpp server (provider = "local")."""

    engine: str = _f("xllamacpp", "xllamacpp (in-process wheel) or llama-server (a native "
                     "binary on PATH or at `binary`)", choices=("xllamacpp", "llama-server"))
    binary: str = _f("llama-server", "the llama-server executable for engine = llama-server")
    host: str = _f("127.0.0.1", "address the server listens on")
    port: int = _f(0, "port; 0 = a free port", minimum=0)
    threads: int = _f(0, "CPU threads; 0 = all cores", minimum=0)
    ctx_size: int = _f(4096, "context window in tokens", minimum=512)
    parallel: int = _f(1, "requests answered at once (llama.cpp slots, each with a ctx_size "
                       "window); `voiceagent hub` uses [hub] llm_slots instead", minimum=1)


@dataclass(frozen=True)
class AgentConfig:
    """[agent]: the tool loop and its caps."""

    system_prompt: str = _f(DEFAULT_SYSTEM_PROMPT, "the system prompt")
    chat_prompt: str = _f(DEFAULT_CHAT_PROMPT, "the system prompt, without the tools, of a "
                          "request no tool serves asked again after the model declined it")
    max_steps: int = _f(6, "most model requests in one turn", minimum=1)
    max_seconds: float = _f(120.0, "most wall-clock seconds for one turn", minimum=1)
    max_tokens: int = _f(20000, "most tokens (in + out) for one turn", minimum=100)
    max_cost_usd: float = _f(0.05, "most money for one turn on paid providers; 0 = no cap",
                             minimum=0)
    tool_result_chars: int = _f(1500, "tool results longer than this are cut", minimum=100)
    worked_example: bool = _f(True, "start the conversation with one worked tool-call "
                              "example (small local models need it)")
    local_commands: bool = _f(True, "answer known commands (time, timers, lists, notes, sums, "
                              "system status, stop) from sentence templates without the LLM; "
                              "false sends everything to the LLM")
    history: str = _f("answers", "how earlier turns are shown to the model: answers (each as "
                      "the user's words and the answer; their tool calls left out, so a long "
                      "session does not push small models into tools) or calls (everything)",
                      choices=("answers", "calls"))


@dataclass(frozen=True)
class STTConfig:
    """[stt]: speech to text with faster-whisper."""

    model: str = _f("tiny.en", "bundled name (tiny.en, base) or a path to a CTranslate2 "
                    "Whisper directory")
    language: str = _f("en", "spoken language code; empty = detect")
    beam_size: int = _f(5, "beam width: 5 misheard fewer words than 1 at about the same speed "
                        "on tiny.en (README: How right); 1 is the fastest", minimum=1)
    threads: int = _f(0, "CPU threads; 0 = all cores", minimum=0)
    hotwords: list[str] = _f([], "words to bias recognition towards (names, list names)")
    prompt: str = _f("Hey, start a timer for two hours, put bread on the to-do list and switch "
                     "the kitchen lights to blue.",
                     "text Whisper reads as if said just before (it copies its words and "
                     "style); empty = none. The hotwords, list names and wake phrase follow it")
    temperature_fallback: bool = _f(True, "decode again with sampling when the greedy or beam "
                                    "result looks garbled (slower on unclear speech)")
    window: str = _f("full", "full (Whisper's 30 s window) or short (the speech + 1 s: about "
                     "4x faster on commands, but on real ones it heard every slot of 68 % where "
                     "full heard 80 %; a result it doubts, repeats or runs on is decoded again "
                     "on the full window; docs/stt.md)", choices=("full", "short"))
    engine: str = _f("local", "local (faster-whisper on this machine) or wyoming (a Wyoming "
                     "speech-to-text service at `uri`: another voiceagent, wyoming-faster-whisper)",
                     choices=("local", "wyoming"))
    uri: str = _f("", "the Wyoming service for engine = wyoming, e.g. tcp://192.168.1.20:10300")
    fallback: str = _f("local", "engine = wyoming while the service is down: local (the bundled "
                       "model answers) or none (the turn fails)", choices=("local", "none"))


@dataclass(frozen=True)
class TTSConfig:
    """[tts]: text to speech with piper."""

    voice: str = _f("en_US-joe-medium", "bundled voice name or a path to a piper .onnx voice")
    volume: float = _f(0.7, "loudness 0..1 (piper normalises to full scale)", minimum=0)
    length_scale: float = _f(1.0, "speaking speed: below 1 faster, above 1 slower", minimum=0.3)
    sentence_silence: float = _f(0.15, "seconds of silence after each sentence", minimum=0)
    engine: str = _f("local", "local (piper on this machine) or wyoming (a Wyoming text-to-speech "
                     "service at `uri`: another voiceagent, wyoming-piper)",
                     choices=("local", "wyoming"))
    uri: str = _f("", "the Wyoming service for engine = wyoming, e.g. tcp://192.168.1.20:10300")
    fallback: str = _f("local", "engine = wyoming while the service is down: local (the bundled "
                       "voice speaks) or none (nothing is spoken)", choices=("local", "none"))


@dataclass(frozen=True)
class AudioConfig:
    """[audio]: devices and end-of-speech detection."""

    input_device: str | int = _f("", "microphone: name substring or index; empty = default")
    output_device: str | int = _f("", "speaker: name substring or index; empty = default")
    silence_ms: int = _f(700, "this much silence ends an utterance when nothing tells whether "
                         "its words are finished", minimum=100)
    min_speech_ms: int = _f(250, "shorter sounds are ignored as noise", minimum=0)
    preroll_ms: int = _f(600, "audio kept from before the detected start of speech, so a soft "
                         "first syllable is not cut", minimum=0)
    turn_model: str = _f("smart-turn-v3.2", "end-of-turn model that hears whether the speaker "
                         "has finished: a bundled name (smart-turn-v3.2) or a path to a "
                         "smart-turn .onnx; empty = none (then no utterance ends before "
                         "silence_ms)")
    turn_end_ms: int = _f(200, "a request heard as finished (the turn model and the words so "
                          "far, transcribed while listening goes on, agree) ends after this "
                          "much silence instead of silence_ms; 0: always wait silence_ms",
                          minimum=0)
    turn_threshold: float = _f(0.5, "the turn model's probability (0..1) from which the "
                               "speaker counts as finished", minimum=0)
    hold_ms: int = _f(700, "extra silence allowed when the words so far are unfinished: they "
                      "trail off (\"and\", \"um\", \"for\"), are only a name (\"alexa, "
                      "...\") or the turn model hears more coming", minimum=0)
    pause_grace_ms: int = _f(500, "extra silence allowed after a first short phrase (\"Picovoice, "
                             "...\") before the utterance ends", minimum=0)
    max_utterance_s: float = _f(15.0, "an utterance is cut after this long", minimum=1)
    listen_timeout_s: float = _f(8.0, "when listening without a key held (daemon mode), give "
                                 "up after this long with no speech", minimum=1)
    vad_threshold: float = _f(0.5, "speech probability (0..1) that counts as speech",
                              minimum=0)
    half_duplex: bool = _f(True, "ignore the microphone while the assistant speaks")
    echo_cancel: bool = _f(False, "kiosk: remove the speaker's own sound from the microphone "
                           "(WebRTC echo cancellation) and keep listening while speaking, so the "
                           "wake word or \"stop\" interrupts an answer (half_duplex is then "
                           "ignored)")
    chime: bool = _f(True, "play a short sound when listening starts and stops")


@dataclass(frozen=True)
class SessionConfig:
    """[session]: the conversation store."""

    name: str = _f("default", "session name; one JSONL file per session")
    max_turns: int = _f(20, "at most this many turns of history go to the model; past it the "
                        "older half is dropped at once", minimum=1)


@dataclass(frozen=True)
class PathsConfig:
    """[paths]: where data lives."""

    data_dir: str = _f("", "sessions, lists, notes, timers; empty = "
                       "$XDG_DATA_HOME/voiceagent (~/.local/share/voiceagent)")
    models_dir: str = _f("", "assembled and user-supplied models; empty = models/ in the "
                         "checkout, else <data_dir>/models")


@dataclass(frozen=True)
class MCPServerConfig:
    """[[tools.mcp]]: one MCP server started over stdio."""

    name: str = _f("", "a short name used in messages")
    command: str = _f("", "the executable")
    args: list[str] = _f([], "its arguments")
    timeout_s: float = _f(10.0, "seconds to wait for the server to start and for each "
                          "tool call", minimum=1)
    needs_approval: bool = _f(False, "ask the user before each call of this server's tools")


@dataclass(frozen=True)
class ToolsConfig:
    """[tools]: which tools the model may use."""

    enabled: list[str] = _f(
        ["clock", "timers", "lists", "calculator", "system", "conversation"],
        "built-in tool families: clock, timers, lists, calculator, files, shell, system, "
        "conversation (every tool's schema is in every prompt: enable only what you use)",
    )
    timezone: str = _f("", "IANA zone such as Europe/Berlin; empty = the system's")
    workspace: str = _f("", "folder the file tools are confined to; empty = <data_dir>/workspace")
    list_aliases: dict[str, str] = _f({"groceries": "shopping", "todo": "to-do"},
                                      "other names for lists")
    shell_timeout_s: float = _f(10.0, "the shell tool's time limit", minimum=1)
    shell_in_kiosk: bool = _f(False, "allow the shell tool in kiosk mode")
    modules: list[str] = _f([], "your own tool modules: importable names or .py paths")
    mcp: list[MCPServerConfig] = _f([], "MCP servers ([[tools.mcp]] tables)")


@dataclass(frozen=True)
class TriggerConfig:
    """[trigger]: how a turn starts."""

    mode: str = _f("ptt", "ptt (push-to-talk), kiosk (always listening), daemon "
                   "(wake on key press)", choices=("ptt", "kiosk", "daemon"))
    key: str = _f("space", "push-to-talk key in the terminal: space or enter",
                  choices=("space", "enter"))
    evdev_key: str = _f("KEY_RIGHTCTRL", "key watched on /dev/input in daemon mode "
                        "(and for hold-to-talk)")
    wake_phrase: str = _f("", "kiosk: only answer utterances starting with this; empty = all")
    wake_word: str = _f("", "kiosk: nothing is transcribed until this wake word is heard: a "
                        "bundled one (hey_jarvis, okay_nabu, hey_mycroft, alexa) or the path of "
                        "a microWakeWord .json; empty = none (then wake_phrase, if set, is "
                        "checked on the transcript)")
    wake_cutoff: float = _f(0.0, "how sure the wake word model must be (0..1): higher wakes "
                            "less often by mistake and misses more; 0 = the model's own (0.97 "
                            "for hey_jarvis)", minimum=0)
    wake_refractory_s: float = _f(2.0, "after the wake word fires, it cannot fire again for "
                                  "this long", minimum=0)
    wake_check: str = _f("auto", "when speech to text checks that the wake word was said "
                         "before waking: doubtful (only a run-on the model is unsure of), always "
                         "(every wake, ~0.3 s later, for models that wake on ordinary speech), "
                         "auto (always for hey_mycroft, which wakes on \"make me a\"; doubtful "
                         "for the others)", choices=("auto", "always", "doubtful"))
    follow_up_s: float = _f(5.0, "kiosk: after an answer that ends with a question, listen this "
                            "long without the wake word; 0 = never", minimum=0)


@dataclass(frozen=True)
class WyomingConfig:
    """[wyoming]: `voiceagent wyoming`, the server for Home Assistant and other machines."""

    uri: str = _f("tcp://0.0.0.0:10300", "where it listens; 0.0.0.0 opens the port to the whole "
                  "LAN and Wyoming has no authentication (tcp://127.0.0.1:10300 keeps it on "
                  "this machine)")
    zeroconf: bool = _f(True, "announce it on the LAN (_wyoming._tcp) so Home Assistant "
                        "discovers it")
    name: str = _f("", "the name it is announced under; empty = voiceagent-<hostname>")
    session: str = _f("wyoming", "the conversation its assistant turns continue (kept apart "
                      "from the local assistant's [session])")


@dataclass(frozen=True)
class HubConfig:
    """[hub]: `voiceagent hub`, one assistant for a house of Wyoming satellites."""

    satellites: list[str] = _f([], "the satellites, each NAME=URI: \"kitchen=tcp://kitchen.local:"
                               "10700\"; NAME is the room (its own conversation, where its "
                               "timers ring)")
    zeroconf: bool = _f(True, "also find satellites on the LAN (_wyoming._tcp); each one is "
                        "connected once, however it was found")
    wake_word: str = _f("", "for satellites that stream all the time (no wake service of "
                        "their own): only answer after this wake word (hey_jarvis, okay_nabu, "
                        "hey_mycroft, alexa or a microWakeWord .json), heard per room on the "
                        "hub; empty = answer every utterance")
    session: str = _f("room", "each room's conversation is the session <session>-<room>")
    llm_slots: int = _f(2, "questions the embedded LLM server answers at once, so two rooms "
                        "asking together are both answered (llama.cpp slots; [server] "
                        "parallel for the hub)", minimum=1)
    reconnect_max_s: float = _f(30.0, "a satellite that went away is tried again after 0.5 s, "
                                "then twice as long each time, up to this", minimum=1)


@dataclass(frozen=True)
class Config:
    """The whole configuration."""

    llm: LLMConfig = field(default_factory=LLMConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    stt: STTConfig = field(default_factory=STTConfig)
    tts: TTSConfig = field(default_factory=TTSConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    session: SessionConfig = field(default_factory=SessionConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    tools: ToolsConfig = field(default_factory=ToolsConfig)
    trigger: TriggerConfig = field(default_factory=TriggerConfig)
    wyoming: WyomingConfig = field(default_factory=WyomingConfig)
    hub: HubConfig = field(default_factory=HubConfig)
    source: str = "built-in defaults"
    """Where the config was read from (for messages)."""

    @property
    def data_dir(self) -> Path:
        if self.paths.data_dir:
            return Path(self.paths.data_dir).expanduser()
        xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(xdg) / "voiceagent"

    @property
    def models_dir(self) -> Path:
        if self.paths.models_dir:
            return Path(self.paths.models_dir).expanduser()
        root = Path(__file__).resolve().parent.parent  # a checkout, or site-packages
        if (root / "pyproject.toml").is_file() and (root / "models").is_dir():
            return root / "models"  # running from a checkout: install.sh assembles here
        return self.data_dir / "models"
