"""What differs between the ways the assistant is used, as one value each.

The composition root (build.py, modes.py) and the tools read these fields; nothing compares
front-end names. A new front end is a new value here, not a new branch in every module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from voiceagent.llm.registry import Share

Keys = Literal["", "terminal", "evdev"]
"""Where key presses come from by default: the terminal, /dev/input, or no keys at all."""


@dataclass(frozen=True)
class FrontEnd:
    """One front end's needs from the parts it is built from."""

    name: str
    """ptt, kiosk, daemon, wyoming, ask or bench: for logs and `--mode`."""
    fires_timers: bool = False
    """It keeps running and has a speaker: it tells the user when a timer is due. Otherwise
    timers are kept but not fired (the running assistant announces them)."""
    keeps_warm: bool = False
    """It runs on between questions: after a turn the model never saw, the server caches the
    conversation for the next one (only against a server on this machine, see build.py)."""
    share: Share = ""
    """How it shares the embedded LLM server: announce the one it starts, or reuse one a
    running assistant announced (llm/registry.py)."""
    hands_free: bool = False
    """Always listening, no key held (the kiosk): anyone in the room can speak to it, so the
    shell tool stays out unless [tools] shell_in_kiosk; its listening loop is the microphone's
    one reader, so the reply to a spoken approval comes through that loop."""
    keys: Keys = ""
    """The key source a keyed front end listens to unless `--keys` says otherwise."""
    view: bool = False
    """It draws the terminal view (level meter, key hint) when stdout is a terminal."""


PTT = FrontEnd("ptt", fires_timers=True, keeps_warm=True, share="announce", keys="terminal",
               view=True)
KIOSK = FrontEnd("kiosk", fires_timers=True, keeps_warm=True, share="announce",
                 hands_free=True)
DAEMON = FrontEnd("daemon", fires_timers=True, keeps_warm=True, share="announce", keys="evdev")
WYOMING = FrontEnd("wyoming", keeps_warm=True, share="announce")
"""Home Assistant speaks the answers: no timers fired here."""
ROOM = FrontEnd("room", fires_timers=True, keeps_warm=True, hands_free=True)
"""A room of `voiceagent hub`: a kiosk on a satellite, its timers rung there; one model serves
every room (the hub connects it), each room in a slot of its own, which the room keeps warm
when no other room's turn is under way (connect.ChatSetup.pinned, agent/foreground.py)."""
ASK = FrontEnd("ask", share="reuse")
"""One question, then exit: nothing kept warm or fired; the running assistant's server used."""
BENCH = FrontEnd("bench")
"""The latency bench: its own server, nothing shared."""

RUN_MODES = {f.name: f for f in (PTT, KIOSK, DAEMON)}
"""`voiceagent run --mode` and [trigger] mode."""
