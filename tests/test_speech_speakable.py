"""Text made for speaking: what a voice should say for what a model writes."""

from __future__ import annotations

import pytest

from voiceagent.speech.numbers import cardinal, decimal, ordinal, year
from voiceagent.speech.speakable import speakable

CASES = [
    # markdown, code and links
    ("**Sure!** I've added *milk* to your list.", "Sure! I've added milk to your list."),
    ("## Today's plan\n- Gym at 7:30\n- Call Anna\n",
     "Today's plan. Gym at seven thirty. Call Anna"),
    ("1. Preheat the oven\n2. Bake for 20 min",
     "Preheat the oven. Bake for twenty minutes"),
    ("Run `git status` first:\n```bash\ngit status\n```\nThen commit.",
     "Run git status first: Then commit."),
    ("See [the forecast](https://weather.example.com/berlin) for details.",
     "See the forecast for details."),
    ("More at https://www.python.org/downloads/ today.", "More at python dot org today."),
    ("Write to help@example.org anytime.", "Write to help at example dot org anytime."),
    ("> Tip: __drink__ water 😀", "Tip: drink water"),
    ("| Day | Rain |\n|---|---|\n| Mon | 20% |", "Day, Rain, Mon, twenty percent"),
    ("Keep snake_case names.", "Keep snake case names."),
    # abbreviations
    ("Dr. Patel can see you, e.g. on Monday.",
     "Doctor Patel can see you, for example, on Monday."),
    ("Bring fruit, i.e. apples, pears, etc.", "Bring fruit, that is, apples, pears, et cetera."),
    ("Mr. Brown vs. Mrs. Green", "Mister Brown versus Missus Green"),
    ("Gate No. 5, approx. 300 m away.",
     "Gate number five, approximately three hundred meters away."),
    # times
    ("It's 7:30.", "It's seven thirty."),
    ("Your alarm is set for 6:05 am tomorrow.", "Your alarm is set for six oh five AM tomorrow."),
    ("The shop opens at 9 a.m. and closes at 5:45 PM.",
     "The shop opens at nine AM and closes at five forty-five PM."),
    ("Lunch is at 12:00, dinner at 19:00.", "Lunch is at twelve o'clock, dinner at seven PM."),
    ("The train leaves at 23:15 or 0:40.",
     "The train leaves at eleven fifteen PM or twelve forty AM."),
    # numbers, money, units
    ("The battery is at 45% and the CPU at 3.5%.",
     "The battery is at forty-five percent and the CPU at three point five percent."),
    ("It's 21°C now, dropping to -3°C tonight.",
     "It's twenty-one degrees Celsius now, dropping to minus three degrees Celsius tonight."),
    ("That's $3.50, or $1.2 million in bulk.",
     "That's three dollars and fifty cents, or one point two million dollars in bulk."),
    ("Tickets cost €20, £1.99 or $0.99.",
     "Tickets cost twenty euros, one pound and ninety-nine pence or ninety-nine cents."),
    ("You walked 5.2 km in 1 h.", "You walked five point two kilometers in one hour."),
    ("The disk has 120 GB free of 1,000 GB.",
     "The disk has one hundred twenty gigabytes free of one thousand gigabytes."),
    ("About 1,250 people came on the 3rd, half of the 21st.",
     "About one thousand two hundred fifty people came on the third, half of the twenty-first."),
    ("Add 1/2 cup of sugar and 3/4 cup of flour.",
     "Add one half cup of sugar and three quarters cup of flour."),
    ("Open pages 5-10.", "Open pages five to ten."),
    ("2 + 2 = 4", "two plus two equals four"),
    ("12 / 4 = 3 and 6 * 7 = 42", "twelve divided by four equals three and six times seven equals "
                                  "forty-two"),
    ("Prices rose 2.5x since 1999.",
     "Prices rose two point five times since nineteen ninety-nine."),
    ("Music from the 1980s and the '90s.", "Music from the nineteen eighties and the nineties."),
    ("The code is 0042.", "The code is zero zero four two."),
    ("Call 555-123-4567.", "Call five five five, one two three, four five six seven."),
    ("Rest for 30s.", "Rest for thirty seconds."),
    ("Tom & Jerry", "Tom and Jerry"),
    ("Your phone has 5G and a 3D camera with 4K video.",
     "Your phone has five G and a three D camera with four K video."),
    ("Use 500 g of rice and 2 L of water; the cooker draws 1,200 W at 230 V.",
     "Use five hundred grams of rice and two liters of water; the cooker draws one thousand "
     "two hundred watts at two hundred thirty volts."),
    ("The CPU runs at 3.2 GHz with 16 GB of RAM.",
     "The CPU runs at three point two gigahertz with sixteen gigabytes of RAM."),
    ("Wow!! Really??", "Wow! Really?"),
]


@pytest.mark.parametrize("text,spoken", CASES, ids=[c[0][:24] for c in CASES])
def test_speakable(text, spoken):
    assert speakable(text) == spoken


@pytest.mark.parametrize("text", [c[0] for c in CASES])
def test_speaking_twice_changes_nothing(text):
    """The synthesizer makes text speakable too, so a second pass must be harmless."""
    once = speakable(text)
    assert speakable(once) == once


@pytest.mark.parametrize("text", ["", "   ", "```\nprint('x')\n```", "***", "---"])
def test_nothing_to_say(text):
    assert speakable(text) == ""


@pytest.mark.parametrize("n,words", [
    (0, "zero"), (7, "seven"), (13, "thirteen"), (40, "forty"), (42, "forty-two"),
    (100, "one hundred"), (305, "three hundred five"), (1000, "one thousand"),
    (2024, "two thousand twenty-four"), (1_000_001, "one million one"),
    (3_400_000_000, "three billion four hundred million"), (-8, "minus eight"),
])
def test_cardinal(n, words):
    assert cardinal(n) == words


@pytest.mark.parametrize("n,words", [(1, "first"), (2, "second"), (3, "third"), (5, "fifth"),
                                     (12, "twelfth"), (20, "twentieth"), (22, "twenty-second"),
                                     (101, "one hundred first"), (1000, "one thousandth")])
def test_ordinal(n, words):
    assert ordinal(n) == words


@pytest.mark.parametrize("n,words", [(1999, "nineteen ninety-nine"), (1900, "nineteen hundred"),
                                     (2000, "two thousand"), (2007, "two thousand seven"),
                                     (2024, "twenty twenty-four"), (1805, "eighteen oh five")])
def test_year(n, words):
    assert year(n) == words


def test_decimal_reads_digits_after_the_point():
    assert decimal("3.05") == "three point zero five"
    assert decimal("0.5") == "zero point five"
