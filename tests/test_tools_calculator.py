"""Calculator and unit conversion: spoken arithmetic, a safe evaluator, forgiving units."""

import pytest

from voiceagent.errors import ToolError
from voiceagent.tools.calculator import make_tools

calculate, convert_units = make_tools()


@pytest.mark.parametrize("expression, answer", [
    ("15 percent of 80", "12"), ("what is five times three", "15"), ("twelve times seven?", "84"),
    ("fifteen percent of two hundred forty", "36"), ("square root of one hundred forty four", "12"),
    ("twelve fifty divided by five", "250"), ("(2+3)^2", "25"), ("10 / 4", "2.5"),
    ("7 % 3", "1"), ("20% of 50", "10"), ("3 x 4", "12"), ("1,000 plus 2,500", "3500"),
    ("two point five times four", "10"), ("10 minus 3 squared", "1"), ("sqrt 2", "1.414213562"),
    ("2 to the power of 10", "1024"), ("-3 + 5", "2"),
])
def test_spoken_arithmetic(expression, answer):
    assert calculate(expression=expression).endswith(f"= {answer}")


@pytest.mark.parametrize("expression, message", [
    ("100 divided by zero", "divides by zero"),
    ("2 ** 100000", "too large"),
    ("__import__('os').system('echo hacked')", "not arithmetic"),
    ("(1 + 2", "could not read"),
    ("[1] * 3", "not arithmetic"),
    ("'ab' * 3", "not arithmetic"),
    ("sqrt(-1)", "no real answer"),
])
def test_unsafe_or_impossible_input_is_refused_with_a_reason(expression, message):
    with pytest.raises(ToolError, match=message):
        calculate(expression=expression)


@pytest.mark.parametrize("value, from_unit, to_unit, answer", [
    (10, "miles", "kilometers", "10 miles is 16.0934 kilometers."),
    (30, "degrees Celsius", "Fahrenheit", "30 celsius is 86 fahrenheit."),
    (2, "pounds", "ounces", "2 pounds is 32 ounces."),
    (1, "Kilometre", "feet", "1 kilometer is 3280.8399 feet."),
    (60, "mph", "km/h", "60 mph is 96.5606 km/h."),
    (2, "hours", "minutes", "2 hours is 120 minutes."),
    (1, "cup", "ml", "1 cup is 236.5882 ml."),
    (300, "K", "°C", "300 kelvin is 26.85 celsius."),
    (12, "inches", "cm", "12 inches is 30.48 cm."),
    (5, "miles per hour", "meters per second", "5 miles per hour is 2.2352 meters per second."),
])
def test_unit_conversion(value, from_unit, to_unit, answer):
    assert convert_units(value=value, from_unit=from_unit, to_unit=to_unit) == answer


def test_unit_errors_are_instructive():
    with pytest.raises(ToolError, match="cannot convert length .* to mass"):
        convert_units(value=1, from_unit="meter", to_unit="kg")
    with pytest.raises(ToolError, match="don't know the unit 'furlong'.*length: meter"):
        convert_units(value=1, from_unit="furlong", to_unit="m")


@pytest.mark.parametrize("expression, answer", [
    ("10 miles in kilometers", "10 miles is 16.0934 kilometers."),
    ("how many kilometers is ten miles", "10 miles is 16.0934 kilometers."),
    ("how many ounces are in two pounds", "2 pounds is 32 ounces."),
    ("convert 30 degrees celsius to fahrenheit", "30 celsius is 86 fahrenheit."),
])
def test_conversions_sent_to_the_calculator_still_convert(expression, answer):
    assert calculate(expression=expression) == answer
