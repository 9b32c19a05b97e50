"""Demo mode: a stand-in ChatModel for when no language model can be reached.

The tools still run for real, through normal tool calls in the normal loop; only the model is
replaced by matching the question's words to the tools' names and descriptions. Every answer
says the language model is absent, so a demo is never mistaken for the real thing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from voiceagent.agent.messages import Message, Reply, ToolCall, ToolChoice, ToolSpec
from voiceagent.language import lexicon, tokens

MARK = "(demo mode, no language model)"


def _stop() -> frozenset[str]:
    return lexicon().words("function_words")


class DemoChat:
    """Answers by calling the best-matching tool, then reading out its result."""

    def __init__(self) -> None:
        self._names = "none"
        """The tools last offered, spoken: a request asked again without tools (a declined
        general one, on the chat prompt) still names them."""

    def complete(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> Reply:
        if messages and messages[-1].role == "tool":
            results: list[str] = []
            for m in reversed(messages):
                if m.role != "tool":
                    break
                results.insert(0, m.text)
            return _say(f"{MARK} {' '.join(results)}", on_text)
        question = messages[-1].text if messages else ""
        call = match(question, tools) if tool_choice != "none" else None
        if call is not None:  # labelled first: a tool whose result is the answer ends the turn
            return Reply(_say(f"{MARK}.", on_text).text, (call,))  # a whole sentence: said
        if tools:
            self._names = ", ".join(t.name.replace("_", " ") for t in tools)  # spoken
        return _say(f"{MARK} I can't answer that without a language model, but my tools still "
                    f"work: {self._names}.", on_text)


def match(question: str, tools: Sequence[ToolSpec]) -> ToolCall | None:
    """The call for the tool whose name and description best match `question`, if any."""
    words = _words(question) - _stop()
    best: tuple[int, int, ToolCall] | None = None
    for spec in tools:
        name_words = _words(spec.name.replace("_", " "))
        score = 3 * len(words & name_words) + len(words & (_words(spec.description) - _stop()))
        args = _fill(spec, question, name_words) if score >= 2 else None  # one word is chance
        if args is None:
            continue
        rank = (score, -len(args))
        if best is None or rank > best[:2]:
            best = (*rank, ToolCall("demo_call", spec.name, args))
    return best[2] if best else None


def _fill(spec: ToolSpec, question: str, name_words: set[str]) -> dict[str, Any] | None:
    """Arguments for the required parameters, taken from the question; None if one is missing."""
    props = spec.parameters.get("properties", {})
    args: dict[str, Any] = {}
    for pname in spec.parameters.get("required", ()):
        value = _value(pname, props.get(pname, {}), question, name_words)
        if value in (None, ""):
            return None
        args[pname] = value
    return args


def _value(pname: str, prop: dict[str, Any], question: str, name_words: set[str]) -> Any:
    lowered = question.lower()
    if "enum" in prop:
        return next((v for v in prop["enum"] if str(v).lower() in lowered), None)
    if prop.get("type") in ("number", "integer"):
        number = re.search(r"-?\d+(?:\.\d+)?", question)
        if number is None:
            return None
        return int(float(number.group())) if prop["type"] == "integer" else float(number.group())
    if pname.endswith("_name"):  # "the shopping list" -> list_name = "shopping"
        noun = pname.removesuffix("_name")
        named = re.search(rf"(\w+)\s+{noun}\b", lowered)
        return named.group(1) if named and named.group(1) not in _stop() else None
    return _remainder(question, name_words)


def _remainder(question: str, name_words: set[str]) -> str:
    """The question without its leading filler and tool words, and without a trailing
    "to the ... list": what the user wants done."""
    words = question.strip().rstrip("?.!").split()
    while words and _norm(words[0]) in _stop() | name_words:
        words.pop(0)
    said = tokens(" ".join(words))
    ends = [start for start, _end in lexicon().find("destination", said) if start > 0]
    return " ".join(words[:ends[0]]) if ends else " ".join(words)


def _words(text: str) -> set[str]:
    return {_norm(w) for w in re.findall(r"[A-Za-z']+", text)} - {""}


def _norm(word: str) -> str:
    """Lower case, synonyms folded ("times" -> calculate), simple plurals cut."""
    word = word.lower().strip("'?.,!").replace("'", "")
    synonyms = dict(lexicon().pairs("tool_synonyms"))
    if word in synonyms:
        return synonyms[word]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _say(text: str, on_text: Callable[[str], None] | None) -> Reply:
    if on_text is not None:
        on_text(text)
    return Reply(text)
