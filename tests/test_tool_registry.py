"""The @tool decorator and the registry: schemas from signatures, errors written for the model."""

from __future__ import annotations

from typing import Literal

from voiceagent.agent.messages import ToolCall
from voiceagent.agent.tools import ToolRegistry, tool
from voiceagent.errors import ToolError


@tool
def add_to_list(list_name: str, items: list[str], mode: Literal["append", "replace"] = "append"
                ) -> str:
    """Use when the user asks to add things to a list.

    Args:
        list_name: which list
        items: what to add
    """
    if list_name == "secret":
        raise ToolError("there is no list 'secret'; lists: shopping")
    return f"added {', '.join(items)} to {list_name}"


@tool(needs_approval=True)
def delete_everything() -> None:
    """Deletes everything."""


registry = ToolRegistry([add_to_list, delete_everything])


def test_schema_comes_from_signature_hints_and_docstring() -> None:
    assert add_to_list.description == "Use when the user asks to add things to a list."
    assert add_to_list.parameters == {
        "type": "object",
        "properties": {
            "list_name": {"type": "string", "description": "which list"},
            "items": {"type": "array", "items": {"type": "string"}, "description": "what to add"},
            "mode": {"type": "string", "enum": ["append", "replace"], "default": "append"},
        },
        "required": ["list_name", "items"],
        "additionalProperties": False,
    }
    assert delete_everything.needs_approval and not add_to_list.needs_approval


def run(name: str, **args: object) -> tuple[str, bool]:
    return registry.run(ToolCall("c1", name, dict(args))).pair


def test_valid_call_runs() -> None:
    assert run("add_to_list", list_name="shopping", items=["eggs"]) == (
        "added eggs to shopping", False)
    assert run("delete_everything") == ("done", False)


def test_errors_name_the_parameter_and_valid_values() -> None:
    text, error = run("add_to_list", items=["eggs"])
    assert error and "missing required parameter 'list_name'" in text
    text, error = run("add_to_list", list_name="s", items=["x"], mode="merge")
    assert error and "'mode'" in text and "valid values: append, replace" in text
    text, error = run("add_to_list", list_name="s", items="eggs")
    assert error and "'items'" in text and "expected array" in text
    text, error = run("add_list", list_name="s")
    assert error and "no tool named 'add_list'" in text and "add_to_list" in text
    text, error = registry.run(ToolCall("c1", "add_to_list", {}, bad_json='{"list_name": ')).pair
    assert error and "not valid JSON" in text
    text, error = run("add_to_list", list_name="secret", items=["x"])
    assert (text, error) == ("Error: there is no list 'secret'; lists: shopping", True)


def test_an_unknown_extra_parameter_is_ignored_and_said() -> None:
    text, error = run("add_to_list", list_name="shopping", items=["eggs"], quantity=2)
    assert not error
    assert text == "added eggs to shopping (Ignored unknown parameter(s): quantity.)"


def test_a_crashing_tool_becomes_an_error_result() -> None:
    @tool
    def broken() -> str:
        """Always fails."""
        return str(1 / 0)

    text, error = ToolRegistry([broken]).run(ToolCall("c", "broken", {})).pair
    assert error and text == "Error: broken failed: ZeroDivisionError: division by zero"


def test_long_results_are_cut_with_a_marker() -> None:
    @tool
    def chatty() -> str:
        """Talks a lot."""
        return "x" * 5000

    text, _ = ToolRegistry([chatty], result_chars=100).run(ToolCall("c", "chatty", {})).pair
    assert text.startswith("x" * 100) and text.endswith("[... 4900 more characters cut]")
