"""The lexicon's tables and templates (language/en/*.yaml): words read as data, the same words in
one place, and a data file that is wrong named with where it is wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from voiceagent.errors import ConfigError
from voiceagent.language import lexicon
from voiceagent.language.calendar_days import calendar_day
from voiceagent.language.lexicon import FILES, read_lexicon
from voiceagent.language.numbers import ordinals
from voiceagent.language.plural import plural, plural_phrase, singular
from voiceagent.language.spoken_time import UNITS
from voiceagent.speech.abbreviations import abbreviations, not_ending


def test_tables_give_typed_values() -> None:
    lex = lexicon()
    assert lex.values("cardinals")["twenty"] == 20
    assert lex.values("scales")["million"] == 1_000_000
    assert lex.values("fractions")["third"] == pytest.approx(1 / 3)  # written "1/3"
    assert lex.names("symbols")["+"] == "plus"
    assert lex.lookup("holidays", "St. Patrick's Day") == "March 17"  # punctuation ignored
    assert lex.lookup("relative_days", "the  day after TOMORROW") == 2
    assert lex.lookup("relative_days", "someday") is None
    assert lex.has("relative_days", "see you tomorrow")  # a table's keys are a word set


def test_sets_include_sets_instead_of_copying_them() -> None:
    lex = lexicon()
    assert lex.words("fillers") <= lex.words("trailing")
    assert lex.words("determiners") <= lex.words("trailing")
    assert lex.words("pronouns") <= lex.words("anaphora")
    assert {"march", "winter"} <= lex.words("times_of_year")  # <months>, <seasons>
    assert lex.words("politeness") <= lex.words("not_items")
    assert {"twenty", "hundred", "half", "dozen"} <= lex.words("number_words")


def test_every_template_compiles() -> None:
    lex = lexicon()
    for name, templates in lex.patterns.items():
        slots = {s: ".+?" for t in templates for s in re.findall(r"\{(\w+)", t)}
        assert lex.templates(name, slots).regex.pattern, name


def test_words_that_name_other_words_name_real_ones() -> None:
    """Sets that point into tables: a typo there would silently match nothing."""
    lex = lexicon()
    for day in lex.phrases("days_with_a_time"):
        assert lex.lookup("relative_days", day) is not None, day
    for unit in (*lex.phrases("said_lengths"), *lex.phrases("bare_number_unit"),
                 *lex.names("duration_letters").values()):
        assert unit in UNITS, unit
    for name, date in lex.table("holidays").items():
        assert calendar_day(str(date)) is not None, name
    assert set(lex.names("meridiem").values()) == {"am", "pm"}


def test_ordinals_are_made_from_the_number_words() -> None:
    assert ordinals(31)["twenty first"] == 21
    assert ordinals(31)["twelfth"] == 12
    assert ordinals(31)["thirtieth"] == 30


def test_one_abbreviation_table_for_the_splitter_and_the_voice() -> None:
    written = {a.written: a for a in abbreviations()}
    assert written["Dr."].say == "Doctor" and written["Dr."].before == "name"
    assert "dr" in not_ending() and "e.g" in not_ending() and "jan" in not_ending()
    assert "etc" not in not_ending()  # "... and so on, etc." may end a sentence


@pytest.mark.parametrize("one, many", [
    ("apple", "apples"), ("berry", "berries"), ("day", "days"), ("inch", "inches"),
    ("box", "boxes"), ("foot", "feet"), ("tomato", "tomatoes"), ("hertz", "hertz"),
    ("glass", "glasses"), ("penny", "pence"), ("movie", "movies"), ("cookie", "cookies"),
    ("party", "parties"), ("pie", "pies"),
])
def test_the_plural_rule_and_its_exceptions(one: str, many: str) -> None:
    assert plural(one) == many
    assert singular(many) == one
    assert singular(one) == one  # a singular stays


def test_a_phrase_is_made_plural_at_its_head() -> None:
    assert plural_phrase("mile per hour") == "miles per hour"
    assert plural_phrase("fluid ounce") == "fluid ounces"
    assert plural_phrase("degree Celsius") == "degrees Celsius"
    assert plural_phrase("kilowatt hour") == "kilowatt hours"
    assert singular("hummus") == "hummus" and singular("celsius") == "celsius"


def _folder(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_name_defined_twice_is_named_with_both_files(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{FILES[0]: "stop: [stop]\n", FILES[1]: "stop: [halt]\n"})
    with pytest.raises(ConfigError, match=r"'stop' is defined twice.*lexicon\.yaml"):
        read_lexicon(folder, "xx")


def test_an_unknown_include_and_a_bad_entry_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="includes <nothing>, which is no set"):
        read_lexicon(_folder(tmp_path, **{FILES[0]: "a: [<nothing>]\n"}), "xx")
    with pytest.raises(ConfigError, match="b must be a list of words or phrases .*, or a table"):
        read_lexicon(_folder(tmp_path, **{FILES[0]: "b: 5\n"}), "xx")
    with pytest.raises(ConfigError, match="includes <c>, which is itself"):
        read_lexicon(_folder(tmp_path, **{FILES[0]: "c: [<c>]\n"}), "xx")


def test_a_table_value_of_the_wrong_kind_is_named(tmp_path: Path) -> None:
    lex = read_lexicon(_folder(tmp_path, **{FILES[0]: "sizes: {big: huge}\n"}), "xx")
    with pytest.raises(ConfigError, match="sizes: big: expected a number"):
        lex.values("sizes")


def test_a_second_language_is_a_second_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{FILES[0]: "stop: [halt, hör auf]\n",
                                  FILES[2]: "templates:\n  later: ['in {n} tagen']\n"})
    lex = read_lexicon(folder, "de")
    assert lex.has("stop", "Bitte hör auf!")
    found = lex.templates("later", {"n": r"\d+"}).match("in 3 Tagen")
    assert found is not None and found.slots == {"n": "3"}


def test_a_key_written_twice_in_a_language_file_is_an_error(tmp_path):
    """A second `repeated:` note in say.yaml once silently replaced the first."""
    from voiceagent.errors import ConfigError
    from voiceagent.language.data_file import load_data

    path = tmp_path / "say.yaml"
    path.write_text("notes:\n  repeated: one\n  other: two\n  repeated: three\n")
    with pytest.raises(ConfigError, match=r"line 4: 'repeated' is written twice \(also on "
                                          r"line 2\)"):
        load_data(path)
    path.write_text("notes:\n  repeated: one\n")
    assert load_data(path) == {"notes": {"repeated": "one"}}
