"""Number words both ways share one table (speech/numbers.py): what the assistant says as words,
the tools read back as the same number."""

import pytest

from voiceagent.speech.numbers import cardinal
from voiceagent.tools.words import numbers_in


@pytest.mark.parametrize("n", [0, 7, 13, 20, 42, 99, 100, 105, 999, 1000, 1250, 2024,
                               1_000_001, 3_000_000_000_000])
def test_spoken_numbers_read_back_as_the_same_number(n: int) -> None:
    assert numbers_in(cardinal(n)) == str(n)
