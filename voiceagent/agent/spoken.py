"""What no person should hear: the check agent/voice.py applies to every sentence of the
model's before it is spoken.

Tool errors are written for the model; small models read them out ("Error: parameter
'part' ..."), print raw JSON, or leave template placeholders ("The current date is [insert
date]."). Those sentences are dropped; if nothing is left to say, the turn says one plain
sentence instead (the loop decides which).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from voiceagent.language import lexicon, tell_model, tokens
from voiceagent.language.asking import asks_only, is_remark, skip_fillers
from voiceagent.language.numbers import NUMBER, numbers_in
from voiceagent.language.people import keeper, states_of
from voiceagent.language.plural import singular
from voiceagent.language.topics import DONE, GRANT_ECHO, Topic, find_terms, topics_of


@functools.cache
def _error() -> re.Pattern[str]:
    """An error's opening words followed by a colon ("Error:", "not run:"), or a
    traceback."""
    words = "|".join(r"\s+".join(map(re.escape, t)) for t in lexicon().terms("error_words"))
    return re.compile(rf"\b(?:{words})\b\s*:|\btraceback\b", re.I)
_JSON = re.compile(r"[{}\[\]]\s*\"|\"\s*:\s*[\[{\"\d]|^\s*[{\[]|[}\]]\s*$")
_PLACEHOLDER = re.compile(r"\[[^\]]{1,60}\]|<[a-z_ ]{2,40}>|\{\{?[^}]{1,40}\}?\}")
"""Template placeholders left in ("The date is [insert date].")."""
_SCHEMA = re.compile(r"\barguments:|\((?:string|integer|number|boolean|array|object|any)"
                     r"(?:, one of:[^)]*)?(?:, optional)?\):")
"""The tools' descriptions as chat_template.jinja writes them ("place (string, optional): a
city or country ...", "arguments: none"): the 1.5B read them out as an answer (twice, to
"sum up all the things for me i could do to make myself happier")."""





_ADDRESS = re.compile(r"\b(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|org|net|io)/\S*", re.I)
"""A web address ("Here's a video about volcanoes: https://www.youtube.com/watch?v="): made
up, as nothing here looks anything up, and no one wants one read aloud."""
_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]\b", re.I)
"""A name written for code ("post_status"): no sentence for the ear has one. Asked "post new
status on facebook time to celebrate", the 1.5B answered "you can use the "post_status"
function", a tool that does not exist."""


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
_HOUR_OF_DAY = re.compile(r"\b(\d{1,2})\s*([ap])\.?\s?m\b", re.I)
"""A clock time said by its hour and half of the day ("10 PM", "7 a.m.")."""


def _hours_of_day(text: str) -> set[tuple[int, str]]:
    return {(int(h) % 12, half.lower())
            for h, half in _HOUR_OF_DAY.findall(numbers_in(text.lower()))}
_ISO_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b")
"""A date as a program writes it ("The current week is 2023-04-16."): no tool here says
one, so unless the user did, it was made up."""


@dataclass
class Facts:
    """What a turn's sentences may rest on: this turn's tool errors (a sentence that parrots
    one is dropped), what the user said and the tools answered (a clock time or weekday
    must come from these: a small model answers "what's the time" with one it made up), and
    which tools ran (a claim that something was done, or about live state, must rest on
    them: "Sure, I'll add naan bread" with no call, "The current month is October")."""

    known: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    ran: set[str] = field(default_factory=set)
    """Tools whose calls succeeded in this turn."""
    ran_before: set[str] = field(default_factory=set)
    """Tools with results earlier in the conversation."""
    results_before: list[str] = field(default_factory=list)
    """What those results said."""
    wrote: bool = False
    """A call that changes something succeeded in this turn."""
    private: Topic | None = None
    """The unserved topic the request asks about the user's own world (their email):
    anything but a refusal is made up."""
    people: tuple[str, ...] = ()
    """How an answer names the people the request speaks of that the user knows ("Bob",
    "your mom": language/people.py): what it states of them, only their contacts know."""
    general: bool = False
    """The request speaks of no topic a tool serves or that nothing here can do: a general
    question, for the model to answer from what it knows, not to decline."""
    served: bool = False
    """The request speaks only of what tools here do ("tell me the time in this time
    zone"): declining it is asked about once more, with the tools named."""
    in_words: bool = False
    """A request on no topic a tool serves, asked by itself: the model's first request
    offers no tool (tool_choice "none"), so a session of tool turns cannot prime it into
    one ("Who wrote Hamlet?" -> calculate)."""
    unserved: Topic | None = None
    """What the request asks that nothing here does, when it asks nothing a tool does
    (a taxi, the volume): a question back ("Where to?", "Which song?") pretends otherwise."""
    answering: bool = False
    """The request answers a question of ours."""
    asked: tuple[Topic, ...] = ()
    """The topics the request speaks of."""
    named: bool = False
    """The request names a topic (a timer, a list, the weather; a number alone names
    none) or asks for something to be done ("go forward please", lexicon "asking_to_do"):
    a bare "Okay." or "Of course!" to it says it was done."""
    request: str = ""
    """What the user asked in this turn."""
    tool_names: frozenset[str] = frozenset()
    """The declared tools' names that are no word ("get_time", "add_to_list"): said, they
    tell the user how to program the assistant ("You can call the tool get_time")."""
    worked: bool = False
    """The request gives two or more amounts to work something out from (the sums topic by
    its amounts): a number the answer states of them must be one a tool worked out, or one
    said ("Each piece is 2.75 inches long." to a board's cuts, with no sum: it is 6.2)."""
    no_answers: frozenset[str] = frozenset()
    """Sentences that answer nothing now: earlier answers to other requests, the user's
    own requests (history.no_answers)."""


def words_note(request: str, *, quote: bool = True) -> str:
    """The note sent with a request no tool serves. One on no topic at all (a remark, a
    joke, a view) is not told it may refuse: so told, the 1.5B answered "today was a tiring
    day" and "tell me a joke" with "I can't assist with that". One on a topic nothing here
    serves names what cannot be done (the topic's reply): told only "if it asks for something
    nothing here can do", the 1.5B answered "do they offer takeaway" with "Yes, they offer
    takeaway." and "how is the news in ireland" with made-up news. Without `quote` that reply
    is left out: the note as a sentence read back from it is checked against (the refusal
    itself may be said)."""
    known = topics_of()
    if not known.about(request):
        return tell_model("in_general")
    unserved = known.only_unserved(request)
    if unserved is not None and unserved.reply:
        return tell_model("in_unserved", cannot=unserved.reply if quote else "")
    return tell_model("in_words")


def with_note(words: str, note: str, *, first: bool = False) -> str:
    """The user's words with a note to the model: after them (why an answer was held back),
    or `first`, before them (a request no tool serves: the note then follows the history,
    where the server has read it already after the last turn: Agent.warm_up)."""
    return f"{note}\n\n{words}" if first else f"{words}\n\n{note}"


def unbacked(sentence: str, facts: Facts) -> str:
    """Why `sentence` claims what no tool backs ("" when it does not): something done with
    no call that did it, live state no tool of this turn gave, what nothing here can know."""
    for topic in _claimed(sentence):
        if topic.name == DONE:
            if not facts.wrote:
                return "claims what no tool did"
        elif not topic.served:
            if not _stated(topic, sentence, facts.request):
                return f"unbacked {topic.name}"
        elif not (set(topic.tools) & facts.ran
                  or (topic.conversation and set(topic.tools) & facts.ran_before
                      and _told_before(sentence, topic, facts.results_before))):
            return f"unbacked {topic.name}"
    live = _live_number(sentence, facts)
    if live is not None:
        return f"unbacked {live.name}"  # "Battery level is 80%." with no status read
    if not facts.wrote and (_takes_on(sentence, facts.request) or _reported_bare(
            sentence, ordered=facts.request)):
        return "claims what no tool did"  # "Sure, set a timer for eight minutes.", no call
    if not facts.wrote and topics_of().acknowledges(sentence, bare=facts.named):
        return "claims what no tool did"  # "pause timer" -> "Sure.", with no call
    if not facts.wrote and any(t.served for t in facts.asked) and _hands_back(
            sentence, facts.request):
        return HANDS_BACK  # "You can add demi and chicken stock to your prep list."
    if facts.unserved is not None and sentence.rstrip().endswith("?") and not facts.answering:
        return f"unbacked {facts.unserved.name}"  # "Where to?" when asked for a taxi
    if facts.unserved is not None and topics_of().grants(sentence, facts.request):
        return f"unbacked {facts.unserved.name}"  # "Sure, here's a small drip coffee."
    other = topics_of().refuses_other(sentence, facts.asked)
    if other is not None:
        return f"{REFUSES_OTHER} ({other.name})"
    if facts.private is not None and not topics_of().refuses(sentence):
        return f"unbacked {facts.private.name}"
    if states_of(sentence, facts.people) and not (topics_of().refuses(sentence) and lexicon(
            ).has("speaker_self", sentence)):
        # "does bob live in france" -> "Yes, Bob lives..." or "No, Bob does not live...";
        # not "Bob isn't in my contacts."
        return f"unbacked {keeper().name}"
    if (facts.general or facts.served) and lexicon().has("declines", sentence):
        return DECLINES_GENERAL if facts.general else DECLINES_SERVED
    return ""


def _live_number(sentence: str, facts: Facts) -> Topic | None:
    """The served topic asked about whose live state `sentence` puts a number on, when none
    of its tools ran ("how's the laptop battery looking" -> "Battery level is 80%."; "dumpling
    still how many minute" -> "The dumpling is still cooking for 15 minutes."). Sums have
    their own check (`_unworked`), the clock its own (times, weekdays, claims)."""
    if facts.worked:
        return None  # a sum's number ("how long is each one in centimetres" after a list
        # add): `_unworked` judges it
    stated = _numbers(sentence) - {0.0, 1.0}
    if not stated:
        return None
    told = {n for text in (facts.request, *facts.known, *facts.errors)
            for n in _numbers(text)}  # "A timer can be at most 7 days long." (an error's)
    if stated <= told:
        return None
    return next((topic for topic in facts.asked if topic.served and not topic.numbers
                 and not topic.when and not set(topic.tools) & facts.ran), None)


def _numbers(text: str) -> set[float]:
    return {float(n) for n in re.findall(NUMBER, numbers_in(text.lower().replace(",", "")))}


def _claimed(sentence: str) -> list[Topic]:
    """The topics whose claims `sentence` makes, as said, without the adverbs inside a claim
    ("The shopping list now contains coffee.": "list contains"; "It is now 5 pm" keeps its
    "is now"), or of one thing ("Alarms set for 6 AM, 2 PM and 10 PM.")."""
    adverbs = lexicon().words("claim_adverbs")
    bare = " ".join(w for w in sentence.split() if w.strip(",.!").lower() not in adverbs)
    one = " ".join(singular(w) for w in tokens(bare))  # "Alarms set for 6 AM, 2 PM ..."
    found: dict[str, Topic] = {}
    for said in dict.fromkeys((sentence, bare, one)):  # each reading once
        found |= {t.name: t for t in topics_of().claimed(said) if t.name not in found}
    return list(found.values())


def _takes_on(sentence: str, request: str) -> bool:
    """`sentence` takes the order: "Sure," then a verb of doing, in two or more of the
    request's own words ("Sure, set a timer for eight minutes." to "eight minutes" after "For
    how long?"). Advice opens so too, in its own words ("Sure, make sure you sleep enough.")
    or to a question ("how do I bake bread at 180 degrees": "Sure, set the oven to 180...")."""
    said = tokens(numbers_in(sentence.lower()))  # "30 minutes" for "thirty minutes"
    start = skip_fillers(said)
    if sentence.rstrip().endswith("?") or asks_only(tokens(request)) or not (
            find_terms(topics_of().verbs, said[start:start + 1])):
        return False
    plain = lexicon().words("function_words")
    echoed = len({w for w in tokens(numbers_in(request.lower())) if w not in plain}
                 & set(said[start:]))
    if start:
        return echoed >= GRANT_ECHO
    # no "Sure,": the order said back ("Set a timer for 7 minutes."), about as long as it,
    # in fewer of its words when it names what the tools keep ("Set a timer for thirty
    # minutes." to "right, thirty minutes, letting the silicone skin over")
    kept = bool(find_terms(topics_of().kept, said))
    return (echoed > GRANT_ECHO or (kept and echoed >= GRANT_ECHO)) and len(said) <= len(
        tokens(request)) + ECHOED_ORDER


def _told_before(sentence: str, topic: Topic, results: list[str]) -> bool:
    """What `sentence` names besides `topic`'s own words was said by an earlier result: "Your
    shopping list has milk." after a read that said so, not "The shopping list now contains
    coffee." after one that said it was empty (coffee was never added)."""
    lex = lexicon()
    known = topics_of()
    plain = (lex.words("function_words") | lex.words("openers") | lex.words("claim_adverbs")
             | {w for t in (*topic.terms, *topic.claims, *topic.things, *known.verbs,
                            *known.reports) for w in t})
    named = {singular(w) for w in tokens(sentence) if w not in plain and not w.isdigit()}
    return named <= {singular(w) for result in results for w in tokens(result)}


def _hands_back(sentence: str, request: str) -> bool:
    """`sentence` tells the user to do what they asked the assistant to do: "You can add
    demi and chicken stock to your prep list.", "To start a gift list, you can add a
    scarf..." to a request (not a question of how), a verb of doing right after a word that
    hands it back (lexicon `handing_back`), in two or more of the request's own words."""
    said = tokens(sentence)
    if sentence.rstrip().endswith("?") or asks_only(tokens(request)):
        return False
    verbs = [at for at in find_terms(topics_of().verbs, said) if at < HANDED_WITHIN]
    handed = lexicon().find("handing_back", said[:HANDED_WITHIN])
    if not any(end <= at <= end + 1 for _start, end in handed for at in verbs):
        return False
    plain = lexicon().words("function_words")
    return len({w for w in tokens(request) if w not in plain} & set(said)) >= GRANT_ECHO


def _reported_bare(sentence: str, *, ordered: str = "") -> bool:
    """A thing and what was done to it, and nothing else: "Bicarb added.", "Milk removed."
    (to "take the baking powder off then put bicarb on instead", no call); to an order of
    it (`ordered`, not a question: "when did the war start"), what begins too: "Recording
    started on Zoom." to "start the recording on zoom" (lexicon "bare_reports")."""
    said = tokens(sentence)
    asked = tokens(ordered)
    begun = tuple(t for t in lexicon().terms("bare_reports")
                  if not asks_only(asked) and any(w[:4] == t[0][:4] for w in asked))
    done = [at for at in find_terms(topics_of().reports + begun, said) if at > 0]
    return (0 < len(said) <= BARE_REPORT and bool(done) and not sentence.rstrip().endswith("?")
            and not find_terms(topics_of().describers, said[done[-1] - 1:done[-1]])
            and not lexicon().has("negation", said) and not lexicon().has("absence", said))


def _stated(topic: Topic, sentence: str, request: str) -> bool:
    """The user stated it themselves, in a remark: "the weather is sunny today" -> "Yes, it
    is sunny today!" agrees with what they said, every word of the topic's in the answer
    theirs ("it will snow tomorrow" is not). A question ("it is hot today, isn't it?")
    asks for the live state, which nothing here knows."""
    said = tokens(request)
    if not is_remark(said):
        return False
    words = tokens(sentence)
    used = [term for term in topic.terms if find_terms((term,), words)]
    return bool(used) and all(find_terms((term,), said) for term in used)


ECHOED_ORDER = 3
"""An answer that opens with the request's verb and object, no more than this many words
longer than the request, says it back as done."""
BARE_REPORT = 4
"""A sentence this short that reports a thing done claims it ("Bicarb added.")."""
HANDED_WITHIN = 10
"""How far into a sentence the words that hand a request back are looked for ("To start
a gift list, you can add ...")."""
HANDS_BACK = "tells the user to do what they asked"
REFUSES_OTHER = "refuses what was not asked"
REPEATS_EARLIER = "repeats an earlier answer or the request"
REPEATED_WORDS = 4
"""A sentence this long said again to another request is copied ("Sure." may recur)."""
DECLINES_GENERAL = "declines a general question"
DECLINES_SERVED = "declines what a tool here does"


SUMS = "sums"
"""The topic whose tools work amounts out (topics.yaml)."""


def _unworked(sentence: str, facts: Facts) -> bool:
    """`sentence` states a number (other than 0 or 1, said in passing: "one of them") that
    neither the user nor a tool said."""
    known = set().union(*map(_numbers, facts.known)) if facts.known else set()
    return bool(_numbers(sentence) - known - {0.0, 1.0})


def _copied(sentence: str, facts: Facts) -> bool:
    """`sentence` is one of an earlier answer to another request or of the user's words,
    and says something (a refusal or a question may well be the same twice)."""
    said = tokens(sentence)
    return (len(said) >= REPEATED_WORDS and " ".join(said) in facts.no_answers
            and not topics_of().refuses(sentence))


def unspeakable(sentence: str, facts: Facts | None = None) -> str:
    """Why `sentence` must not be spoken ("" when it may): error text, JSON, a placeholder,
    a sentence that mostly repeats one of this turn's tool errors, or (given `facts`) a
    clock time or weekday nobody told it."""
    if _error().search(sentence):
        return "error text"
    if _JSON.search(sentence):
        return "raw JSON"
    if _PLACEHOLDER.search(sentence) or lexicon().has("placeholder_words", sentence):
        return "placeholder"
    if _SCHEMA.search(sentence):
        return "tool schema"
    if _ADDRESS.search(sentence):
        return "a web address"
    if _IDENTIFIER.search(sentence):
        return "a name from code"
    if facts is None:
        return ""
    if facts.tool_names & set(re.findall(r"[a-z][a-z0-9_]*", sentence.lower())):
        return "names a tool"
    for time in _CLOCK.findall(sentence):
        if not any(time in fact for fact in facts.known):
            return "made-up time"
    said_hours = _hours_of_day(sentence)  # "In São Paulo, it is 10 PM.", no call
    if said_hours and not said_hours <= set().union(*map(_hours_of_day, facts.known)):
        return "made-up time"
    for date in _ISO_DATE.findall(sentence):
        if not any(date in fact for fact in facts.known):
            return "made-up date"
    # asked "What day of the week is it?" without the clock, the 1.5B said "Monday" on a
    # Tuesday: a weekday must come from a tool or the user
    for day in lexicon().words("weekdays") & set(tokens(sentence)):
        if not any(day in fact.lower() for fact in facts.known):
            return "a weekday no tool gave"
    if facts.worked and _unworked(sentence, facts):
        return f"unbacked {SUMS}"
    if _copied(sentence, facts):
        return REPEATS_EARLIER
    said = _words(sentence)
    # by its own words too, not only "what would you ... to": a note to the model is long,
    # and "What would you like to know?" shared 5 of its 6 words with one
    own = [w for w in said if w not in lexicon().words("function_words")] or said
    if len(said) >= 5:
        for error in facts.errors:
            error_words = set(_words(error))
            if min(sum(w in error_words for w in words) / len(words)
                   for words in (said, own)) >= 0.7:
                return "repeats a tool error"
    return unbacked(sentence, facts)
