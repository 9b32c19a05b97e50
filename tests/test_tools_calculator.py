"""Calculator and unit conversion: spoken arithmetic, a safe evaluator, forgiving units."""

import pytest

from voiceagent.errors import ToolError
from voiceagent.tools.calculator import make_tools

calculate, convert_units = make_tools()


@pytest.mark.parametrize("expression, answer", [
    ("15 percent of 80", "15 percent of 80 is 12."),
    ("what is five times three", "Five times three is 15."),
    ("twelve times seven?", "Twelve times seven is 84."),
    ("fifteen percent of two hundred forty", "Fifteen percent of two hundred forty is 36."),
    ("square root of one hundred forty four", "Square root of one hundred forty four is 12."),
    ("twelve fifty divided by five", "Twelve fifty divided by five is 250."),
    ("(2+3)^2", "2 plus 3, squared, is 25."), ("(2 + 3) * 4", "2 plus 3, times 4, is 20."),
    ("10 / 4", "10 divided by 4 is 2.5."), ("7 % 3", "7 mod 3 is 1."),
    ("20% of 50", "20 percent of 50 is 10."), ("3 x 4", "3 times 4 is 12."),
    # a share added to or taken off what it is a share of, as a calculator does it
    ("3500 naira plus 15 percent", "3500 naira plus 15 percent is 4025."),
    ("80 minus 20%", "80 minus 20 percent is 64."),
    ("20 percent off 60 dollars", "20 percent off 60 dollars is 48."),
    ("15 percent plus 5 percent", "15 percent plus 5 percent is 0.2."),
    # amounts in one unit of size are a sum of numbers (a handyman's shelf board)
    ("2.4 metres divided by 5", "2.4 metres divided by 5 is 0.48."),
    ("12*7=", "12 times 7 is 84."), ("1,000 plus 2,500", "1,000 plus 2,500 is 3500."),
    ("two point five times four", "Two point five times four is 10."),
    ("10 minus 3 squared", "10 minus 3 squared is 1."),
    ("sqrt 2", "The square root of 2 is about 1.4142."),
    ("sqrt(2)", "The square root of 2 is about 1.4142."),
    ("2 to the power of 10", "2 to the power of 10 is 1024."),
    ("2 ** 10", "2 to the power of 10 is 1024."),
    ("-3 + 5", "Minus 3 plus 5 is 2."), ("1/3", "1 divided by 3 is about 0.3333."),
    ("what's the square root of 81", "The square root of 81 is 9."),
    ("12 times 7 equals", "12 times 7 is 84."),
    ("twenty-five times four", "Twenty-five times four is 100."),
    # brackets that cannot be read aloud without ambiguity: just the answer
    ("2 * (3 + 4)", "The answer is 14."), ("((1+2)*3)+4", "The answer is 13."),
    ("sin(30)", "The answer is 0.5."),
    ("3 hours * 60 minutes", "3 hours times 60 minutes is 180."),
    # fractions said in words are exact parts of the sum, "a hundred" is 100, and "five and
    # five" is two numbers, not 505
    ("five and five eighths plus three and three quarters",
     "Five and five eighths plus three and three quarters is 9.375."),
    ("5 and 3/4 plus 1", "5 and 3 divided by 4 plus 1 is 6.75."),
    ("one and a half times 4", "One and a half times 4 is 6."),
    ("half of 10", "Half of 10 is 5."),
    ("three quarters of 250", "Three quarters of 250 is 187.5."),
    ("a hundred plus a hundred plus a million",
     "A hundred plus a hundred plus a million is 1000200."),
    ("is 15 percent of 80", "15 percent of 80 is 12."),
    # how people put sums (sets 22 and 23): a share on top of an amount, sizes "by", prices
    # "at ... each", a whole sum shared out, a rate per thing written with a slash, hours and
    # minutes as one length
    ("15 percent markup on 212 quid of parts",
     "15 percent markup on 212 quid of parts is 243.8."),
    ("20 percent vat on top of 292.5", "20 percent vat on top of 292.5 is 351."),
    # set 25: a part of a whole was multiplied by it ("... as a percentage is 1360.")
    ("34 out of 40 as a percentage", "34 out of 40 as a percentage is 85."),
    ("27 out of 40", "27 out of 40 is 0.675."),
    ("34 is what percent of 40", "34 is what percent of 40 is 85."),
    ("26 bucks plus 15 percent tip split four ways",
     "26 bucks plus 15 percent tip split four ways is 7.475."),
    ("11.52 plus 64 split 4 ways", "11.52 plus 64 split 4 ways is 18.88."),
    ("84 dollars split between 3 people", "84 dollars split between 3 people is 28."),
    ("100 minus 20 percent divided by 2", "100 minus 20 percent divided by 2 is 40."),
    ("3 metres by 1.2", "3 metres by 1.2 is 3.6."),
    ("3 packs of beans at 2.49 each", "3 packs of beans at 2.49 each is 7.47."),
    ("3 packs of beans at 2.49 each one", "3 packs of beans at 2.49 each one is 7.47."),
    ("4 trays of 24 cells", "4 trays of 24 cells is 96."),
    ("4 trays * 24 cells/tray", "4 trays times 24 cells per tray is 96."),
    ("42 kilometers / 1 hour 38 minutes",
     "42 kilometers divided by 1 hour 38 minutes is about 25.7143."),
])
def test_the_answer_is_a_sentence_to_speak(expression, answer):
    """Spoken as it is (speaks_result): the user's words, symbols read as words, no '='."""
    assert calculate(expression=expression) == answer


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
    (10, "miles", "kilometers", "10 miles is 16.09 kilometers."),
    (30, "degrees Celsius", "Fahrenheit", "30 celsius is 86 fahrenheit."),
    (2, "pounds", "ounces", "2 pounds is 32 ounces."),
    (1, "Kilometre", "feet", "1 kilometer is 3281 feet."),
    (60, "mph", "km/h", "60 mph is 96.56 km/h."),
    (2, "hours", "minutes", "2 hours is 120 minutes."),
    (1, "cup", "ml", "1 cup is 236.6 ml."),
    (300, "K", "°C", "300 kelvin is 26.85 celsius."),
    (12, "inches", "cm", "12 inches is 30.48 cm."),
    (5, "miles per hour", "meters per second", "5 miles per hour is 2.235 meters per second."),
    # a name with a meaning of another kind takes the one the other unit has
    (1.5, "ounces", "ml", "1.5 fluid ounces is 44.36 ml."),
    (2, "mils", "ounces", "2 milliliters is 0.06763 fluid ounces."),
    (2, "inches", "mils", "2 inches is 50.8 mils."),
    (2, "ounces", "grams", "2 ounces is 56.7 grams."),
])
def test_unit_conversion(value, from_unit, to_unit, answer):
    assert convert_units(value=value, from_unit=from_unit, to_unit=to_unit) == answer


def test_unit_errors_are_instructive():
    with pytest.raises(ToolError, match="cannot convert length .* to mass"):
        convert_units(value=1, from_unit="meter", to_unit="kg")
    with pytest.raises(ToolError, match="don't know the unit 'furlong'.*length: meter"):
        convert_units(value=1, from_unit="furlong", to_unit="m")


@pytest.mark.parametrize("expression, answer", [
    ("10 miles in kilometers", "10 miles is 16.09 kilometers."),
    ("how many kilometers is ten miles", "10 miles is 16.09 kilometers."),
    ("how many ounces are in two pounds", "2 pounds is 32 ounces."),
    ("convert 30 degrees celsius to fahrenheit", "30 celsius is 86 fahrenheit."),
])
def test_conversions_sent_to_the_calculator_still_convert(expression, answer):
    assert calculate(expression=expression) == answer


@pytest.mark.parametrize("expression, answer", [
    # lengths of different units were added as bare numbers: "is 32."
    ("2 minutes plus 30 seconds", "2 minutes plus 30 seconds is 2 minutes 30 seconds."),
    ("1 hour 20 plus 50 minutes", "1 hour 20 plus 50 minutes is 2 hours 10 minutes."),
    ("three hours minus forty minutes", "3 hours minus 40 minutes is 2 hours 20 minutes."),
    # ... and in the unit asked for (the first length was dropped: "45 minutes is 0.75 hours")
    ("90 minutes plus 45 minutes in hours", "90 minutes plus 45 minutes is 2.25 hours."),
    ("1 hour plus 30 minutes in minutes", "1 hour plus 30 minutes is 90 minutes."),
    ("30 seconds + 5 minutes", "30 seconds plus 5 minutes is 5 minutes 30 seconds."),
    # a length divided by a length: how many times it goes in (was 0.33: 20 / 60)
    ("20 minutes / (40 seconds + 20 seconds)", "The answer is 20."),
    ("an hour divided by 90 seconds", "An hour divided by 90 seconds is 40."),
    # a number that is no length keeps its sum
    ("5 minutes plus 2", "5 minutes plus 2 is 7."),
    ("3 hours times 60 minutes", "3 hours times 60 minutes is 180."),
])
def test_lengths_of_time_are_added_as_lengths(expression, answer):
    assert calculate(expression=expression) == answer


@pytest.mark.parametrize("expression, answer", [
    # amounts in two units of one kind (set 26: the 1.5B's "27 kilos divided by 340 grams"
    # for how many 340 g jars 27 kg of honey fills was an error, and "Sorry, I couldn't")
    ("27 kilos divided by 340 grams", "27 kilos divided by 340 grams is about 79.4118."),
    ("2 litres / 250 ml", "2 litres divided by 250 ml is 8."),
    # ... a total, in the first amount's unit (was 502: the bare numbers added)
    ("2 litres plus 500 millilitres", "2 litres plus 500 millilitres is 2.5 liters."),
    ("1.5 kg - 200 g", "1.5 kg minus 200 g is 1.3 kg."),
    ("one and a half pounds minus 4 ounces",
     "One and a half pounds minus 4 ounces is 1.25 pounds."),
    # one unit, or an area: the calculator's as before
    ("2 metres times 3 metres", "2 metres times 3 metres is 6."),
    ("2 litres divided by 4", "2 litres divided by 4 is 0.5."),
])
def test_amounts_in_units_of_one_kind_are_worked_in_one_unit(expression, answer):
    assert calculate(expression=expression) == answer


@pytest.mark.parametrize("expression, answer", [
    # how long from one time of day to another (set 26: "how many minutes is it from 6:05 to
    # 7:40" went to convert_time six times and ran out of steps)
    ("from 6:05 to 7:40 in minutes", "From 6:05 to 7:40 is 95 minutes."),
    ("from 6:05 to 7:40", "From 6:05 to 7:40 is 1 hour 35 minutes."),
    ("7:40 - 6:05", "From 6:05 to 7:40 is 1 hour 35 minutes."),
    ("between 9 am and 5:30 pm in hours", "From 9 am to 5:30 pm is 8.5 hours."),
    # ... the next such time after the first: past noon, past midnight
    ("from 11:30 to 1:15", "From 11:30 to 1:15 is 1 hour 45 minutes."),
    ("from 10:30 pm to 6:15 am", "From 10:30 pm to 6:15 am is 7 hours 45 minutes."),
])
def test_a_span_between_two_times_of_day_is_a_length(expression, answer):
    assert calculate(expression=expression) == answer


@pytest.mark.parametrize("expression, value", [
    # the model's sum of things counted (sets 18 and 19): the things' names left out
    ("18 people * 3 wings per person", "is 54."),
    ("175 grams of sugar divided by 4 people multiplied by 8 people", "is 350."),
    ("12 guests * 2 ounces per guest", "is 24."),
])
def test_a_sum_of_things_counted_is_a_sum_of_their_numbers(expression, value):
    assert str(calculate(expression=expression)).endswith(value)


def test_a_conversion_to_the_same_unit_is_refused_to_the_model():
    # "how many hours is it from twenty-two hundred to oh six hundred": the 1.5B said
    # "2200 hours is 2200 hours."
    with pytest.raises(ToolError, match="same unit"):
        convert_units(value=2200, from_unit="hours", to_unit="hours")


def test_trades_and_trails_say_units_their_own_way():
    assert str(convert_units(value=2, from_unit="inches", to_unit="mil")) == (
        "2 inches is 50.8 mil.")
    assert str(convert_units(value=14, from_unit="miles", to_unit="kays")).startswith(
        "14 miles is 22.53")
