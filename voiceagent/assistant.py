"""One turn of the assistant: audio or text in, a spoken (streamed) answer out, session saved.

Front ends (push-to-talk, kiosk, daemon, `ask`) are composition around this one class: they
decide when a turn starts and where audio comes from; the turn itself is always the same.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field, replace
from typing import Any

from voiceagent.agent.events import (
    AudioEnd,
    AudioStart,
    Event,
    Events,
    Final,
    FirstToken,
    Misheard,
    Recording,
    Request,
    Sentence,
    SpeechEnd,
    SttDone,
    ToolResult,
    TurnEnd,
    TurnStart,
)
from voiceagent.agent.foreground import Foreground
from voiceagent.agent.loop import Agent, TurnResult
from voiceagent.agent.messages import Message
from voiceagent.agent.session import SessionStore, bound
from voiceagent.agent.warmer import Warmer
from voiceagent.audio import Audio
from voiceagent.language import say, tell_model
from voiceagent.ports import Player, Synthesizer, Transcriber, Transcript
from voiceagent.speaking import SpeechOutput, speak
from voiceagent.speech.unsure import unsure_amount

log = logging.getLogger(__name__)

@dataclass
class TurnOutcome:
    """What a turn produced, for printing, `ask --json` and the bench."""

    transcript: str | None
    """What the user said (audio turns only)."""
    answer: str
    """What the assistant said."""
    stop: str
    """done, cap, cancelled, error, loop, misheard (asked to repeat), empty (nothing was
    heard) or not_addressed (no wake phrase)."""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """name, args, result, error for each call, in order."""
    timings: dict[str, Any] = field(default_factory=dict)
    """Seconds since the end of speech (or the text's arrival) for each milestone."""


class Assistant:
    """Runs turns against one conversation, speaking answers as they stream."""

    def __init__(
        self,
        *,
        agent: Agent,
        session: SessionStore,
        synthesizer: Synthesizer,
        player: Player,
        events: Events,
        transcriber: Transcriber | None = None,
        keep_warm: bool = False,
        forget: threading.Event | None = None,
        foreground: Foreground | None = None,
    ) -> None:
        self.agent = agent
        self.session = session
        self.synthesizer = synthesizer
        self.player = player
        self.events = events
        self.transcriber = transcriber
        self.history: list[Message] = session.load()
        self._speaking_lock = threading.Lock()
        self._cancel = threading.Event()
        self._speech: SpeechOutput | None = None
        self._forget = forget or threading.Event()
        """Set (by the conversation tool, through request_reset) to forget the conversation
        at the end of the turn, so the tool result stays consistent with the history."""
        self.warmer = Warmer(agent, foreground)
        """Has the server read ahead: the conversation, a draft's words (agent/warmer.py)."""
        self.keep_warm = keep_warm
        """After a turn the model never saw (a local command), have the server cache the
        conversation in the background, so the next question to the model does not wait for
        it; and prefill drafts heard as finished (a long-running front end against a server
        on this machine sets this; a one-shot ask exits at once)."""

    def answer_audio(
        self, audio: Audio, *, speech_end: float | None = None, wake_phrase: str = ""
    ) -> TurnOutcome:
        """Transcribe `audio` and answer it; silence or noise ends the turn without the LLM.

        With a wake phrase, only utterances that start with it are answered (without it).
        A transcript the recogniser doubts is answered, but nothing that changes anything
        runs on it; a garbled one is not answered at all: the user is asked to repeat.
        """
        if self.transcriber is None:
            raise RuntimeError("this assistant was built without a transcriber")
        recording = self._begin(speech_end, source="audio")
        seconds = round(audio.seconds, 3)
        self.events.emit(SpeechEnd(seconds))
        heard = self.transcriber.transcribe(audio)
        text = heard.strip()
        doubt = getattr(heard, "doubt", "") or (
            unsure_amount(heard) if isinstance(heard, Transcript) else "")
        self.events.emit(SttDone(text, seconds, confident=not doubt))
        request = strip_wake_phrase(text, wake_phrase) if wake_phrase else text
        if not request:
            stop = "empty" if not text else "not_addressed"
            self.events.emit(TurnEnd(stop))
            return TurnOutcome(transcript=text, answer="", stop=stop,
                               timings=timings_from(recording.events))
        if doubt:
            self.events.emit(Misheard(text, doubt))
        if getattr(heard, "garbled", False):
            return self._ask_again(recording, text)
        return self._answer(request, recording, transcript=text, doubtful=bool(doubt))

    def answer_text(self, text: str) -> TurnOutcome:
        """Answer typed text (the `ask` command, tests)."""
        recording = self._begin(None, source="text")
        return self._answer(text, recording, transcript=None)

    def interrupt(self) -> None:
        """Barge-in: stop speaking now and cancel the running turn cleanly."""
        self._cancel.set()
        speech = self._speech
        if speech is not None:
            speech.cancel()

    def announce(self, text: str) -> None:
        """Speak `text` outside a turn (a timer going off); waits for a running answer."""
        with self._speaking_lock:
            self.speak_now(text)

    def speak_now(self, text: str) -> None:
        """Speak `text` at once, from inside a turn (an approval question)."""
        speak(self.synthesizer, self.player, self.events, text)

    def prefill(self, words: str, *, wake_phrase: str = "") -> None:
        """The request's transcript was ready at a pause that may end the utterance
        (speech/read_ahead.py): have the server read the request those words make now,
        while the user is still pausing. Nothing is spoken or kept: the turn sends its own
        request from the final transcript, which finds them read when they are the same.
        Not during a turn (its history is not final), nor for words without the wake phrase."""
        if not self.keep_warm or self._speaking_lock.locked():
            return
        request = strip_wake_phrase(words, wake_phrase) if wake_phrase else words
        if request.strip():
            self.warmer.prefill(self.history, request)

    def request_reset(self) -> None:
        """Forget the conversation at the end of this turn (the tool result stays consistent)."""
        self._forget.set()

    def _begin(self, t0: float | None, *, source: str) -> Recording:
        self._cancel.clear()
        recording = Recording()
        self.events.start_turn(t0)
        self.events.subscribe_turn(recording)
        self.events.emit(TurnStart(source))
        return recording

    def _ask_again(self, recording: Recording, heard: str) -> TurnOutcome:
        """Nothing is answered or stored; the user hears one short request to repeat."""
        sentence = say("misheard")
        with self._speaking_lock:
            self.speak_now(sentence)
        self.events.emit(Final(sentence, "misheard"))
        self.events.emit(TurnEnd("misheard"))
        return TurnOutcome(transcript=heard, answer=sentence, stop="misheard",
                           timings=timings_from(recording.events))

    def _answer(self, text: str, recording: Recording, *, transcript: str | None,
                doubtful: bool = False) -> TurnOutcome:
        with self._speaking_lock, self.warmer.foreground.turn():
            result = self._run_agent(text, doubtful)
        self._save(result.messages)
        self.events.emit(TurnEnd(result.stop))
        if self.keep_warm:
            # the next request shows this turn as it is kept, which is seldom how the model
            # saw it (a local command it never saw, an answer held back or replaced, the note
            # its request carried, answers without their calls): have the server cache it
            # now; when it already has, this costs one token
            self.warmer.warm(self.history)
        return TurnOutcome(
            transcript=transcript,
            answer=result.answer,
            stop=result.stop,
            tool_calls=[
                {"name": done.call.name, "args": done.args, "result": done.text,
                 "error": done.error, "refs": [r.to_dict() for r in done.refs]}
                for done in result.tool_calls
            ],
            timings=timings_from(recording.events),
        )

    def _run_agent(self, text: str, doubtful: bool) -> TurnResult:
        speech = SpeechOutput(self.synthesizer, self.player, self.events)
        self._speech = speech
        try:
            result = self.agent.run_turn(
                self.history, text, on_text=speech.sentence, cancel=self._cancel,
                doubtful=doubtful
            )
            if self._cancel.is_set():
                speech.cancel()
            speech.finish()
        finally:
            self._speech = None
        if self._cancel.is_set() and result.stop != "cancelled":
            return cut_short(result, speech.heard)
        return result

    def _save(self, new_messages: list[Message]) -> None:
        if self._forget.is_set():
            self._forget.clear()
            self.history = []
        else:
            self.history = bound(self.history + list(new_messages), self.session.max_turns,
                                 self.session.max_chars)
        self.session.save(self.history)


def cut_short(result: TurnResult, heard: list[str]) -> TurnResult:
    """The turn as the user lived it when they interrupted the spoken answer: the history
    keeps only the sentences that started playing, so the model never assumes the user heard
    the rest."""
    said = " ".join(heard)
    messages = list(result.messages)
    if messages and messages[-1].role == "assistant" and not messages[-1].calls:
        messages[-1] = Message("assistant", f"{said} ({tell_model('cancelled')})".strip())
    return replace(result, answer=said, messages=messages, stop="cancelled")


def strip_wake_phrase(text: str, wake_phrase: str) -> str:
    """The request after the wake phrase ("Computer, what time is it" -> "what time is it"),
    or "" when the utterance does not start with it. Case and punctuation are ignored."""
    words = re.findall(r"[\w']+", text.lower())
    wake = re.findall(r"[\w']+", wake_phrase.lower())
    for start in range(min(2, len(words))):  # allow one leading filler ("hey", "ok")
        if words[start : start + len(wake)] == wake:
            rest = re.split(r"[\w']+", text, maxsplit=start + len(wake))[-1]
            return rest.lstrip(" ,.!?;:").strip()
    return ""


MILESTONES: dict[type[Event], str] = {
    SttDone: "stt_done",
    Request: "request_sent",
    FirstToken: "first_token",
    Sentence: "first_sentence",
    AudioStart: "first_audio",
    AudioEnd: "last_audio",
    Final: "answer_done",
}


def timings_from(events: list[Event]) -> dict[str, Any]:
    """Per-turn timings (seconds since end of speech) from the turn's trace events."""
    timings: dict[str, Any] = {}
    for event in events:
        name = MILESTONES.get(type(event))
        if name and name not in timings:
            timings[name] = round(event.t, 3)
    tools = [{"name": e.name, "seconds": e.seconds} for e in events if isinstance(e, ToolResult)]
    if tools:
        timings["tools"] = tools
    if events:
        timings["total"] = round(events[-1].t, 3)
    return timings
