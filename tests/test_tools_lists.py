"""Lists and notes: plain files, forgiving list names, instructive errors."""

import pytest

from voiceagent.agent.messages import ToolCall
from voiceagent.agent.tools import ToolRegistry
from voiceagent.errors import ToolError
from voiceagent.testing import FakeClock
from voiceagent.tools.lists import make_tools, split_items

ALIASES = {"groceries": "shopping", "todo": "to-do"}


@pytest.fixture
def t(tmp_path):
    tools, _ = make_tools(tmp_path, ALIASES, FakeClock())
    return {tool.name: tool for tool in tools}


def test_add_and_read_across_phrasings(t, tmp_path):
    assert t["add_to_list"](list_name="my Shopping List", items="apples") == (
        "Added apples to your new shopping list.")
    assert t["add_to_list"](list_name="groceries", items="eggs, milk and bread") == (
        "Added eggs, milk and bread to your shopping list.")
    assert t["read_list"](list_name="shopping list") == (
        "Your shopping list has 4 items: apples, eggs, milk and bread.")
    assert (tmp_path / "lists" / "shopping.txt").read_text() == "apples\neggs\nmilk\nbread\n"


def test_what_follows_the_word_list_is_no_part_of_its_name(t):
    t["add_to_list"](list_name="shopping", items="eggs")
    assert t["read_list"](list_name="shopping list for today") == (
        "Your shopping list has 1 item: eggs.")
    assert t["add_to_list"](list_name="gift list for mum", items="a scarf") == (
        "Added scarf to your new gift list.")


def test_singular_and_plural_names_and_aliases(t):
    t["add_to_list"](list_name="grocery list", items="eggs")  # alias groceries -> shopping
    t["add_to_list"](list_name="task", items="file taxes")
    assert t["read_list"](list_name="shopping") == "Your shopping list has 1 item: eggs."
    assert t["read_list"](list_name="tasks") == "Your task list has 1 item: file taxes."


def test_duplicates_are_not_added_twice(t):
    t["add_to_list"](list_name="shopping", items="apples")
    assert t["add_to_list"](list_name="shopping", items="Apple") == (
        "Apple is already on your shopping list.")


def test_whether_something_is_on_a_list_is_answered_yes_or_no(t):
    """"is milk on my shopping list": the 1.5B answered from the conversation, or read the
    whole list out."""
    assert t["read_list"](item="milk") == "No, milk is not on your shopping list."
    t["add_to_list"](list_name="shopping", items="milk, eggs")
    t["add_to_list"](list_name="to-do", items="call the plumber")
    assert t["read_list"](list_name="shopping", item="Milk") == (
        "Yes, milk is on your shopping list.")
    assert t["read_list"](list_name="shopping", item="egg and bread") == (
        "Yes, egg is on your shopping list. No, bread is not on your shopping list.")
    assert t["read_list"](item="eggs") == "Yes, eggs are on your shopping list."
    assert t["read_list"](item="call the plumber") == "Yes, call the plumber is on your to-do list."


def test_an_item_is_taken_off_the_one_list_it_is_on_when_no_list_is_named(t):
    t["add_to_list"](list_name="shopping", items="milk, eggs")
    t["add_to_list"](list_name="to-do", items="call the plumber, buy milk")
    assert t["remove_from_list"](items="eggs") == "Removed eggs from your shopping list."
    with pytest.raises(ToolError, match="on no list"):
        t["remove_from_list"](items="your help")  # "I don't need your help": not a list's
    t["add_to_list"](list_name="camping", items="milk")
    with pytest.raises(ToolError, match="more than one list: camping and shopping"):
        t["remove_from_list"](items="milk")


def test_to_do_list_names(t):
    t["add_to_list"](list_name="to do list", items="call the dentist")
    assert t["read_list"](list_name="todo") == "Your to-do list has 1 item: call the dentist."
    assert t["read_list"](list_name="") == "Your lists: to-do."


def test_remove_and_clear(t):
    t["add_to_list"](list_name="shopping", items="apples, eggs and milk")
    assert t["remove_from_list"](list_name="shopping", items="apple and cheese") == (
        "Removed apples from your shopping list. Cheese was not on it.")
    assert t["remove_from_list"](list_name="shopping", items="cheese") == (
        "Cheese is not on your shopping list; it has eggs and milk.")
    assert t["clear_list"](list_name="shopping") == "Your shopping list is now empty."
    assert t["read_list"](list_name="shopping") == "Your shopping list is empty."


def test_a_list_is_made_empty_and_one_there_already_is_is_kept(t, tmp_path):
    """"make a packing list": an empty list there is (read back as empty, named among the
    lists); asked again, the list and what is on it are kept and said."""
    assert t["create_list"](list_name="packing") == (
        "I've made you a new packing list. It's empty for now.")
    assert (tmp_path / "lists" / "packing.txt").exists()
    assert t["read_list"](list_name="packing") == "Your packing list is empty."
    assert t["read_list"](list_name="") == "Your lists: packing."
    assert t["create_list"](list_name="packing list") == (
        "You already have a packing list. It's empty.")
    t["add_to_list"](list_name="packing", items="tent and torch")
    assert t["create_list"](list_name="the packing list") == (
        "You already have a packing list, with 2 items on it.")
    assert t["read_list"](list_name="packing") == "Your packing list has 2 items: tent and torch."
    assert t["create_list"](list_name="school run", items="lunchboxes and water bottles") == (
        "Added lunchboxes and water bottles to your new school-run list.")


def test_unknown_list_names_the_existing_lists(t):
    t["add_to_list"](list_name="shopping", items="apples")
    t["add_to_list"](list_name="todo", items="taxes")
    assert t["read_list"](list_name="work list") == (
        "You have no work list yet. Your lists: shopping and to-do.")
    registry = ToolRegistry(t.values())
    text, is_error = registry.run(ToolCall("1", "clear_list", {"list_name": "work"})).pair
    assert not is_error and text == "You have no work list yet. Your lists: shopping and to-do."
    assert t["remove_from_list"](list_name="work", items="taxes").startswith("You have no work")


def test_notes(t, tmp_path):
    assert t["read_notes"]() == "You have no notes."
    assert t["add_note"](text="the wifi password is on the fridge") == "Noted."
    t["add_note"](text="buy a birthday card")
    assert t["read_notes"]() == (
        "Your notes: buy a birthday card; the wifi password is on the fridge.")
    assert "| the wifi password" in (tmp_path / "notes.txt").read_text()


def test_split_items():
    assert split_items("some eggs, a loaf of bread & the milk.") == [
        "eggs", "loaf of bread", "milk"]
    assert split_items("coffee too") == ["coffee"]  # "we're out of coffee too"
    assert split_items("milk as well, and eggs") == ["milk", "eggs"]
    # what says a thing is wanted is no part of it (set 23: "eggs, we need and bin bags")
    assert split_items("eggs and we need more bin bags") == ["eggs", "bin bags"]
    assert split_items("milk, and i also need bread") == ["milk", "bread"]


@pytest.mark.parametrize("said, items", [
    ("tea bags too, the ordinary ones", ["ordinary tea bags"]),
    ("milk, the organic one, and eggs", ["organic milk", "eggs"]),
    ("apples and the green ones", ["green apples"]),
    ("one apple", ["one apple"]),
])
def test_the_ones_describe_the_item_before_them(said: str, items: list[str]):
    """"And tea bags too, the ordinary ones": 'ordinary ones' went on the list as an item."""
    assert split_items(said) == items


@pytest.mark.parametrize("said, items", [
    ("milk, to my shopping list", ["milk"]),  # the 0.5B passed on "And milk, and then to..."
    ("milk and then to my shopping list", ["milk"]),
    ("bread to the shopping list", ["bread"]),
    ("sugar on my grocery list please", ["sugar"]),
    ("stamps into our to-do list", ["stamps"]),
    ("a wish list", ["wish list"]),  # an item that is a list is still an item
    ("to do list", []),
])
def test_where_the_items_go_is_no_item(said: str, items: list[str]):
    assert split_items(said) == items


def test_a_pronoun_is_no_item(tmp_path):
    """"We're out of coffee, put it on the shopping list": the 0.5B passed "put it on the
    shopping list", and "put it" became an item of a new list."""
    from voiceagent.errors import ToolError
    from voiceagent.tools.lists import make_tools

    tools, _lists = make_tools(tmp_path, {}, FakeClock())
    add = next(t for t in tools if t.name == "add_to_list")
    with pytest.raises(ToolError, match="names no item"):
        add(list_name="shopping", items="put it on the shopping list")
    assert add(list_name="shopping", items="coffee") == "Added coffee to your new shopping list."


@pytest.mark.parametrize(("said", "named"), [
    ("list the items on my shopping list olly", "shopping"),
    ("can i see my work lists", "work"),
    ("what's on my to-do list", "to-do"),
    ("read out my shopping list for today", "shopping"),
    ("what is on my list", ""),
    ("all my lists", ""),
    ("list all my lists", ""),
    ("list the items", ""),
    ("remove milk from the list", ""),
    ("what lists do I have", ""),  # read as "You have no what list yet."
    ("how many lists have i got", ""),
])
def test_the_list_a_request_names(tmp_path, said: str, named: str):
    _, lists = make_tools(tmp_path, {}, FakeClock())
    assert lists.said(said) == named


@pytest.mark.parametrize(("called", "stored"), [
    ("new grocery", "grocery"), ("a brand new packing list", "packing"),
    ("another to do list", "to-do"), ("new york trip", "new-york-trip"),
    ("new", "new"), ("my new year's resolutions", "new-year-resolutions"),
])
def test_a_list_said_to_be_new_is_named_without_the_word(tmp_path, called: str, stored: str):
    _, lists = make_tools(tmp_path, {}, FakeClock())
    assert lists.resolve(called, must_exist=False) == stored


def test_an_item_named_with_words_after_it_or_by_part_is_the_one_taken_off(t):
    """Unpunctuated: "scratch the balloons the birthday girl is scared of them"; a part of
    the item's name: "take the monster off" (monster energy)."""
    t["add_to_list"](list_name="party", items="chips, balloons, monster energy, bread")
    assert t["remove_from_list"](
        list_name="party", items="balloons the birthday girl is scared of them") == (
        "Removed balloons from your party list.")
    assert t["remove_from_list"](items="the monster") == (
        "Removed monster energy from your party list.")
    assert "not on your party list" in t["remove_from_list"](list_name="party", items="butter")
    t["add_to_list"](list_name="party", items="a pack of balloons")  # its thing, after "of"
    assert t["remove_from_list"](list_name="party", items="the balloons") == (
        "Removed pack of balloons from your party list.")


def test_a_thing_named_by_how_much_of_it_there_is_is_the_thing():
    """"oh and we've got enough rice now" (set 23) removed "enough rice", which was not on
    the list; another kind of the thing ("brown rice") is not the rice."""
    from voiceagent.tools.lists import meant_item
    assert meant_item("enough rice", ["eggs", "rice"]) == "rice"
    assert meant_item("plenty of eggs", ["eggs", "rice"]) == "eggs"
    assert meant_item("brown rice", ["eggs", "rice"]) is None
