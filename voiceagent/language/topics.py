"""What a request is about and what an answer claims, from `language/<code>/topics.yaml`.

    topics = topics_of()                       # loaded once
    topics.on_topic("add_to_list", "reserve the closest uber")   # False: no list was named
    topics.claimed("Sure, I'll add naan bread to the list.")     # [done]
    topics.claimed("The current month is October.")             # [clock]

The call policy asks `on_topic` before a call the model made runs; the speech policy asks
`claimed` of every sentence, and the turn's results say whether a claim is backed.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voiceagent.errors import ConfigError
from voiceagent.language.asking import (
    content_words,
    is_remark,
    is_request,
    skip_fillers,
    unaddressed,
)
from voiceagent.language.conversions import converts
from voiceagent.language.data_file import load_data
from voiceagent.language.lengths import length_alone, lengths_said
from voiceagent.language.lexicon import lexicon, tokens
from voiceagent.language.numbers import amounts_in
from voiceagent.language.plural import singular
from voiceagent.language.rounding import without_rounding
from voiceagent.language.topic import Terms, Topic, find_terms, term_spans, terms_at

__all__ = ["DONE", "SUM_AMOUNTS", "Topic", "Topics", "find_terms", "topics_of"]

DONE = "done"
"""The claim that something was done (any tool that changes something backs it)."""
NEAR = 3
"""A verb of doing this near a promise ("I'll quickly add ...") is a claim."""
GRANT_ECHO = 2  # a grant ("here's ...") repeating this many of the request's words
REPORTED = 8
"""A report ("... has been cancelled") this many words in claims; later it describes."""


SUM_AMOUNTS = 2
"""Amounts that make a request a sum by themselves, with no word of a sum said."""


@dataclass(frozen=True)
class Topics:
    """Every topic of one language, and the words of a claim that something was done."""

    topics: tuple[Topic, ...]
    promise: Terms
    verbs: Terms
    opens: Terms
    negation: Terms
    number_words: frozenset[str]

    self_words: Terms = ()
    reports: Terms = ()
    """Words that report a thing done ("removed", "cancelled"): a claim in a sentence that
    names a thing the tools keep ("Alarm canceled.", "I removed eggs from your list.")."""
    reporters: Terms = ()
    """Who reports a thing done ("I", "we"), just before the report."""
    describers: Terms = ()
    """Words before a report that make it a description: an auxiliary ("Pluto was
    removed"), another doer ("you added")."""
    kept: Terms = ()
    """The things the tools here keep (timer, alarm, list, note): the `things` of the served
    topics."""
    alone: Terms = ()
    """Acknowledgements that, as a whole sentence, say a request was taken on ("Sure, I can
    help with that.", "Got it.")."""
    absence: Terms = ()
    """Words that say there is none of something ("no", "don't have any"): before a thing a
    served topic keeps, a claim about the user's state ("I don't have any lists.")."""
    headline: Terms = ()
    """Words that report a thing done only right after it, at the sentence's start, the way
    a headline does ("Reminder set for 4 PM.", "Countdown started."); elsewhere they
    describe ("your timer, set for 10 minutes, has 3 left")."""

    def topic(self, name: str) -> Topic:
        return next(t for t in self.topics if t.name == name)

    def unknowable(self, text: str) -> Topic | None:
        """The unserved topic a request asks about the user's own world ("what did I tell
        Susan in my last email", "do I have meetings today") or its live state ("will it be
        too cold for a dress on sunday", "how is the traffic on houston street now": lexicon
        "live"), when it is on no served topic but the clock's words for when: nothing here
        knows the answer. None for general questions ("what is email?", "why does it rain")."""
        return self.only_unserved(text) if self.particular(text) else None

    def particular(self, text: str) -> bool:
        """`text` speaks of the user's own ("my", "did I") or of the world now ("last night":
        lexicon "live"): what nothing here knows unless a tool keeps it."""
        return bool(find_terms(self.self_words, tokens(text))) or lexicon().has("live", text)

    def cannot(self, text: str) -> Topic | None:
        """The unserved topic of a request nothing here can answer or do: `unknowable`, or one
        that asks of such a topic anything but general knowledge ("play some jazz", "euro to
        u. s. d.", "does pf changs accept takeout orders": asked, the 1.5B made up an answer
        to one in six of SLURP's). None for questions in a form that asks what is generally
        known ("what is email?", "why does it rain": lexicon "knowledge_openers"), or what
        is usual ("habitual"), and for remarks. Local commands answer these without the model."""
        said = tokens(text)
        topic = self.only_unserved(text)
        if topic is None or self.unknowable(text) is not None:
            return topic
        lex = lexicon()
        if topic.knowable:
            return None  # "google the meaning of demonetisation": the model may know
        rest = content_words(said)
        opens = [n for n in (1, 2, 3, 4) if lex.is_one("knowledge_openers", rest[:n])]
        particular = [n for n in (2, 3) if lex.is_one("particular_openers", rest[:n])]
        knowledge = bool(opens) and max(opens) > max(particular, default=0) or lex.has(
            "habitual", said)
        return topic if (is_request(text, said) or not is_remark(said)) and not knowledge else None

    def only_unserved(self, text: str) -> Topic | None:
        """The unserved topic `text` speaks of first when it speaks of no served one (the
        clock's words for when aside): what it asks, nothing here does. First in the words,
        not in the file: "make me a light roast iced mocha" is an order (its first words),
        not the lights (the real coffee orders heard "I can't reach lights")."""
        found = self.about(text)
        said = self._as_terms(unaddressed(tokens(text)))
        unserved = [t for t in found if not t.served]
        if any(t.served and (not (t.when or t.when_terms) or self._own_terms(t, said, unserved))
               for t in found):
            return None  # "can i have today's date": the date, not an order
        return min(unserved, key=lambda t: min(find_terms(t.terms, said), default=len(said)),
                   default=None)

    @staticmethod
    def _own_terms(topic: Topic, said: Sequence[str], unserved: list[Topic]) -> bool:
        """`said` has a term of `topic`'s that asks of it: not one of its `when_terms` with
        an unserved topic's term after it ("what time is the evening meeting": the meeting's
        time; "can i have today's date": the date; "put bluey on the telly": no list)."""
        later = [u for t in unserved for u in find_terms(t.terms, said)]
        own = find_terms(tuple(t for t in topic.terms if t not in topic.when_terms), said)
        if any(topic.when or not any(p - NEAR <= u < p - 1 for u in later) for p in own):
            return True  # ... but "email that list to him" is no list's business ("my
            # playlist list" is one: the word just before names it)
        at = find_terms(topic.when_terms, said)
        return bool(at) and not any(u > min(at) for u in later)

    def serving(self, tool: str) -> Topic | None:
        """The served topic `tool` belongs to; None for a tool no topic names (plugins)."""
        return next((t for t in self.topics if t.served and tool in t.tools), None)

    def about(self, text: str) -> list[Topic]:
        """The topics `text` speaks of, in file order; none for a remark that speaks only of
        what nothing here serves ("i had a lot of meetings today" asks nothing of a
        calendar: the model replies to it as to any remark), and no unserved one for a
        request of what the model makes itself (lexicon "creations": "i want a nerd joke")."""
        said = tokens(text)
        asks = is_request(text, said)
        named = self._named(unaddressed(_unnamed(said)), asks)
        timing = lexicon().has("timing_asks", said)  # "the oven one set 45 minutes": its
        timed = (any(t.lengths for t in self.topics) and (timing or not any(  # timer, not it
            not t.served for t in named)) and (lexicon().has("asking_to_do", said) or timing
                                               or length_alone(text)) and bool(lengths_said(text)))
        unserved = any(not t.served for t in named)  # "one euro in dollars" is no sum
        amounts = self._amounts(text, said) if any(t.numbers for t in self.topics) else 0
        summed = (asks or lexicon().has("shares_out", said)) and not unserved and (
            amounts >= SUM_AMOUNTS)  # "tip jar's got 186 dollars, four of us splitting it"
        converted = asks and amounts >= 1 and converts(said)  # "oven. two hundred celsius.
        # fahrenheit?": a conversion, whatever else is named; no device is reached
        found = [t for t in self.topics if t in named or (t.numbers and (summed or converted))
                 or (t.lengths and timed)]
        if found and not any(t.served for t in found) and not asks and is_remark(said):
            return []  # a remark about the user's day, not a request nothing here serves
        if lexicon().has("creations", said):  # "give me a joke", "search for new jokes":
            return [t for t in found if t.served]  # the model makes it, nothing is ordered
        return found

    def _amounts(self, text: str, said: Sequence[str]) -> int:
        """The amounts a request names; the last result counts as one when it refers back
        to it ("now add a hundred to that")."""
        return amounts_in(text, said, self.number_words) + lexicon().has("refers_back", said)

    def on_topic(self, tool: str, text: str) -> bool | None:
        """Whether `text` speaks of what `tool` is for; None when no topic names the tool."""
        topic = self.serving(tool)
        if topic is None:
            return None
        return topic in self.about(text)

    def claimed(self, sentence: str) -> list[Topic]:
        """What `sentence` states that a tool must back: the topics whose claims it makes,
        and a `done` topic when it says something was done. A question, or a statement of
        what was not or cannot be done, claims nothing."""
        if sentence.rstrip().endswith("?"):
            return []
        said = tokens(sentence)
        found = [t for t in self.topics if (t.claims and any(
            not self._negated(said, at) for at in find_terms(t.claims, said)))
            or self._says_none(said, t)]
        if self._says_done(said):
            found.append(Topic(DONE, served=True))
        return found

    def acknowledges(self, sentence: str, *, bare: bool) -> bool:
        """`sentence` says the request was taken on and nothing else: "Sure, I can help with
        that.", "Will do." (done `alone`), or, when `bare`, only "Okay!" or "Sure." (the
        lexicon's openers; to a remark they are no claim)."""
        said = tokens(sentence)
        rest = tuple(said[skip_fillers(said):])
        return bool(said) and not sentence.rstrip().endswith("?") and (
            rest in self.alone or (bare and not rest))

    def grants(self, sentence: str, request: str) -> bool:
        """`sentence` hands over what `request` asked for, in its words ("Sure, here's a
        small drip coffee." to "may I have a small drip coffee"): opening with a grant
        (lexicon "granting", after "Sure,") and repeating two or more of the request's own
        words. "Here's a joke" to "give me a joke" repeats one."""
        said = tokens(sentence)
        start = skip_fillers(said)
        if not find_terms(lexicon().terms("granting"), said[start:start + 3]) or self.refuses(
                sentence):
            return False
        plain = (lexicon().words("function_words") | lexicon().words("filler")
                 | lexicon().words("containers"))
        asked = {w for w in tokens(request) if w not in plain}
        return len(asked & set(said[start:])) >= GRANT_ECHO

    def named(self, text: str) -> list[Topic]:
        """The topics whose words `text` says (a number alone names none)."""
        said = tokens(text)
        return self._named(unaddressed(said), is_request(text, said))

    def _named(self, said: Sequence[str], asks: bool) -> list[Topic]:
        """The topics whose words are said; their `asked` words count only when it asks."""
        said = self._as_terms(without_rounding(said))  # "to the nearest gram": no place
        return [t for t in self.topics
                if find_terms(t.terms, said) or (asks and find_terms(t.asked, said))]

    @functools.cached_property
    def _one_word_terms(self) -> frozenset[str]:
        return frozenset(term[0] for t in self.topics if not t.one_each
                         for term in (*t.terms, *t.asked) if len(term) == 1)

    def _as_terms(self, said: Sequence[str]) -> list[str]:
        """`said` with the plural of a one-word term read as that term (the files list terms
        once: "the next four scheduled trains to chicago" is on navigation's "train"); a word
        that is a term itself stays as it is ("news", "tracks")."""
        terms = self._one_word_terms
        return [w if w in terms or singular(w) not in terms else singular(w) for w in said]

    def refuses_other(self, sentence: str, asked: Sequence[Topic]) -> Topic | None:
        """The unserved topic a refusal names that the request did not speak of ("Sorry, I
        can't check the weather here." to "who is on at the theater tonight"): the small
        model's copy of the worked example, not an answer."""
        if (not self.refuses(sentence) or sentence.rstrip().endswith("?")
                or lexicon().has("contrast", sentence)):
            return None  # "I can't browse, but Hamlet was written by Shakespeare."
        return next((t for t in self.named(sentence) if not t.served and t not in asked), None)

    def refuses(self, sentence: str) -> bool:
        """`sentence` says what cannot or will not be done (a negation in it), or asks."""
        return sentence.rstrip().endswith("?") or bool(find_terms(self.negation, tokens(sentence)))

    def _says_none(self, said: Sequence[str], topic: Topic) -> bool:
        """`said` states that the user has none of what `topic` keeps: an absence word
        shortly before one of its things ("I don't have any lists.", "There are no timers
        set.", "You have no shopping list."). Answered without the topic's tool, that is made
        up as surely as a list read out: asked "what lists are available", the 1.5B said
        "There are no lists available." beside a shopping and a to-do list."""
        if not topic.served or not topic.things:
            return False
        things = set(find_terms(topic.things, said))
        return any(at < thing <= at + len(term) + NEAR
                   for at, term in terms_at(self.absence, said) for thing in things)

    def _negated(self, said: Sequence[str], at: int) -> bool:
        """A negation anywhere before position `at` of the sentence ("I can't add that to
        your calendar")."""
        return bool(find_terms(self.negation, said[:at + 1]))

    def _says_done(self, said: Sequence[str]) -> bool:
        start = skip_fillers(said)
        if any(tuple(said[start:start + len(t)]) == t for t in self.opens):
            return True
        for _start, end in term_spans(self.promise, said):
            verbs = find_terms(self.verbs, said[end:end + NEAR + 1])
            if verbs and not self._negated(said, end + verbs[0]):
                return True
        return self._reports_done(said, start)

    def _reports_done(self, said: Sequence[str], start: int) -> bool:
        """A report of a kept thing done, in the first words of the sentence, the thing
        named before it ("Alarm canceled.", "The 5 AM alarm has been cancelled.", "I removed
        eggs from your shopping list."): the models' way to claim a call they never made."""
        reported = [at for at in find_terms(self.reports, said) if at > start and not (
            self._negated(said, at) or (find_terms(self.describers, said[at - 1:at])
                                        and not lexicon().is_one("perfect_passive",
                                                                 said[max(0, at - 2):at])))]
        if reported and find_terms(self.reporters, said[start:start + 1]):
            return True  # "I found the list named shopping and removed apple.", "I removed
            # "apple" from it." (the list named in the sentence before)
        things = find_terms(self.kept, said)
        if not things:
            return False
        led = start + 1 if said[start:start + 1] and not lexicon().has(
            "articles", said[start:start + 1]) else start  # "Pasta timer set.", not "The"
        if any(t <= led and (t + 1) in find_terms(self.headline, said[:t + 3]) for t in things):
            return True  # "Reminder set for 160 minutes.", "Pasta timer started."
        if any(at < t <= at + NEAR + 1 and not set(said[at:t]) & lexicon().words("one")
               for at in reported for t in things):
            return True  # "Flour and baking powder added to the shopping list.", not "to a list"
        for at in find_terms(self.reports, said[:start + REPORTED + 1]):
            if self._negated(said, at):
                continue
            if min(things) < at or find_terms(self.reporters, said[max(start, at - 2):at]):
                return True  # "the alarm is cancelled", "I (have) removed eggs from the list"
            if at <= start + 2 and not find_terms(self.describers, said[start:at]):
                return True  # "Eggs removed from your list."; not "Pluto was removed from"
        return False


def _terms(data: dict[str, Any], key: str, where: str) -> Terms:
    values = data.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ConfigError(f"{where}: {key} must be a list of words or phrases")
    return tuple(t for v in values if (t := tuple(tokens(v))))


@functools.cache
def topics_of(language: str = "en") -> Topics:
    """The topics of `language`, loaded on first use and shared."""
    path = lexicon(language).file("topics.yaml")
    data = load_data(path)
    found: list[Topic] = []
    for served, part in ((True, "served"), (False, "unserved")):
        for name, spec in (data.get(part) or {}).items():
            where = f"{path}: {part}.{name}"
            found.append(Topic(name, served, tuple(spec.get("tools", ())),
                               _terms(spec, "terms", where), _terms(spec, "claims", where),
                               bool(spec.get("numbers")), bool(spec.get("conversation")),
                               str(spec.get("reply", "")), bool(spec.get("when")),
                               bool(spec.get("lengths")), _terms(spec, "asked", where),
                               _terms(spec, "things", where), bool(spec.get("knowable")),
                               _terms(spec, "when_terms", where), bool(spec.get("one_each"))))
    replies = load_data(lexicon(language).file("replies.yaml")).get("intents", {})
    for i, topic in enumerate(found):
        if topic.reply:
            if topic.reply not in replies:
                raise ConfigError(f"{path}: {topic.name} names no intent {topic.reply!r} "
                                  "of replies.yaml")
            found[i] = dataclasses.replace(topic, reply=str(replies[topic.reply]["reply"]))
    done = data.get("done") or {}
    where = f"{path}: done"
    lex = lexicon(language)
    return Topics(tuple(found), _terms(done, "promise", where), _terms(done, "verbs", where),
                  _terms(done, "opens", where), lex.terms("negation") + lex.terms("refusal"),
                  lex.words("number_words"), lex.terms("self"), _terms(done, "reports", where),
                  _terms(done, "reporters", where), _terms(done, "describers", where),
                  tuple(t for spec in (data.get("served") or {}).values()
                        for t in _terms(spec, "things", where)), _terms(done, "alone", where),
                  lex.terms("absence"), _terms(done, "headline", where))


def _unnamed(said: Sequence[str]) -> list[str]:
    """`said` without the words that name what it asks for (lexicon "naming_tails": "...,
    call that one group two" asks no phone call)."""
    named = {at for start, end in lexicon().find("naming_tails", said)
             for at in range(start, end)}
    return [w for at, w in enumerate(said) if at not in named]
