"""The worked example exchange sent before the conversation: user, tool call, result, answer.

Small local models need one complete exchange to see the whole protocol: without it they call
the same tool again after its result instead of answering. The example must use a tool that is
in the request's tool list (an unknown tool confuses them), and its facts must not go stale in
a way that leaks into real answers, so it asks for a sum, not today's time. It is identical on
every turn so the server's prompt cache keeps covering it.
"""

from __future__ import annotations

from collections.abc import Container

from voiceagent.agent.messages import Message, ToolCall

_EXAMPLES: dict[str, tuple[str, dict[str, str], str, str]] = {
    # tool: (user says, arguments, tool result, spoken answer)
    "calculate": ("What is 15 percent of 80?", {"expression": "15 percent of 80"},
                  "15 percent of 80 is 12.", "15 percent of 80 is 12."),
    "get_time": ("What time is it in Tokyo?", {"place": "Tokyo"},
                 "In Tokyo it is 3:12 PM, Tuesday, March 3, 2026.", "It's 3:12 PM in Tokyo."),
}
"""In order of preference; the first whose tool is available is used."""

_PLAIN = (Message("user", "How long should I boil an egg?"),
          Message("assistant", "About nine minutes for a hard-boiled egg, six for a soft one."),
          Message("user", "Will it rain tomorrow?"),
          Message("assistant", "Sorry, I can't check the weather here."))
"""Questions answered without a tool: a general how-to one (without it, small models call some
tool for everything; with a fact question in its place, the 1.5B refused recipes and advice in
the refusal's words) and one no tool can serve (without it, they misuse a tool or make up
facts). Three such exchanges were too many: the 1.5B then answered "What time is it?" without
the clock."""


def worked_example(tools: Container[str]) -> tuple[Message, ...]:
    """The example for the first available tool in `tools` (a ToolRegistry or names); () if none."""
    for name, (question, args, result, answer) in _EXAMPLES.items():
        if name in tools:
            call = ToolCall("call_example", name, args)
            return (
                *_PLAIN,
                Message("user", question),
                Message("assistant", calls=(call,)),
                Message("tool", result, call_id=call.id, name=name),
                Message("assistant", answer),
            )
    return ()
