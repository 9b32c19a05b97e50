"""The assistant's own sentences, by name, from `language/<code>/say.yaml`.

    say("misheard")                      # "Sorry, I didn't catch that. ..."
    say("timer_done", name="pasta timer")
    tell_model("repeated", name=..., result=...)

One table for every closing sentence, apology and note to the model, so rewording one never
touches Python, and a second language is a second file.
"""

from __future__ import annotations

import functools
from typing import Any

from voiceagent.errors import ConfigError
from voiceagent.language.data_file import load_data
from voiceagent.language.lexicon import lexicon


@functools.cache
def _data(language: str) -> dict[str, Any]:
    path = lexicon(language).file("say.yaml")
    return load_data(path)


@functools.cache
def _table(language: str) -> dict[str, dict[str, str]]:
    path = lexicon(language).file("say.yaml")
    data = _data(language)
    for part in ("user", "model"):
        if not isinstance(data.get(part), dict):
            raise ConfigError(f"{path}: needs a {part!r} table of named sentences")
    return {part: {k: " ".join(str(v).split()) for k, v in data[part].items()}
            for part in ("user", "model")}


def _sentence(part: str, key: str, language: str, fields: dict[str, Any]) -> str:
    try:
        template = _table(language)[part][key]
    except KeyError:
        raise KeyError(f"no sentence {key!r} in the {language} say.yaml ({part})") from None
    return template.format(**fields) if fields else template


def say(key: str, language: str = "en", **fields: Any) -> str:
    """The sentence `key` said to the user, with `fields` filled in."""
    return _sentence("user", key, language, fields)


def tell_model(key: str, language: str = "en", **fields: Any) -> str:
    """The note `key` for the model, with `fields` filled in."""
    return _sentence("model", key, language, fields)


def own_sentences(language: str = "en") -> frozenset[str]:
    """The sentences the assistant says in its own words that need no fields ("Sorry, I kept
    repeating the same step, so I stopped."): what it says of itself, never a claim about
    the user's world (the evaluation's judge reads every answer for claims)."""
    return frozenset(v for v in _table(language)["user"].values() if "{" not in v)


def skills(language: str = "en") -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """What the assistant can do, by family: (verb, [(tool, [what it does it to])])."""
    found = []
    for row in _data(language).get("skills", []):
        ((verb, family),) = row.items()
        found.append((verb, [(tool, str(what).split("|")) for tool, what in family.items()]))
    return found
