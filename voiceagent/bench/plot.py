"""`bench --plot`: a waterfall of one typical turn per pipeline, so you see where time goes.

matplotlib is imported here only (no pyplot, no GUI backend): the bench without --plot and
the rest of voiceagent never load it.
"""

from __future__ import annotations

from typing import Any

from voiceagent.errors import VoiceAgentError

ROWS = [
    ("endpoint", "end of words → cut", "#937860"),
    ("stt", "speech to text", "#4c72b0"),
    ("llm_wait", "LLM: prompt to 1st token", "#dd8452"),
    ("llm_write", "LLM: writing the reply", "#c44e52"),
    ("tools", "tool calls", "#8172b3"),
    ("tts", "speech synthesis", "#55a868"),
    ("playback", "playback (heard)", "#64b5cd"),
]
"""(stage key in a turn's "stages", row label, colour), top to bottom."""
MARKS = [("reply_onset", "reply heard"), ("first_audio", "first audio")]
"""The milestone marked with a dashed line: the recorded reply onset (live), else the first
audio the player reported."""
MIN_BAR = 0.004
"""Spans shorter than this fraction of the time axis are drawn this wide, to stay visible."""


def draw_timeline(pair: dict[str, dict[str, Any]], path: str, *,
                  title: str = "Where the time goes in one typical turn (the median time to "
                               "first audio)") -> None:
    """Draw each labelled turn (from `typical_pair` or live's `typical_turns`) as stage bars
    over time, in the order given; write PNG. Rows no turn has are left out."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise VoiceAgentError("--plot needs matplotlib: .venv/bin/pip install matplotlib") \
            from None
    pipelines = list(pair)
    rows = [r for r in ROWS if any(pair[p]["stages"].get(r[0]) for p in pipelines)]
    fig = Figure(figsize=(11, 2.2 + 2.4 * len(pipelines)), dpi=100)
    axes = fig.subplots(len(pipelines), 1, sharex=True, squeeze=False)[:, 0]
    end = max(pair[p]["timings"].get("total", 0.0) for p in pipelines)
    for ax, pipeline in zip(axes, pipelines, strict=True):
        _draw_turn(ax, pipeline, pair[pipeline], end, rows)
    axes[-1].set_xlabel("seconds since the end of speech")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, format="png")


def _draw_turn(ax: Any, pipeline: str, turn: dict[str, Any], end: float,
               rows: list[tuple[str, str, str]]) -> None:
    for row, (key, _label, colour) in enumerate(rows):
        spans = turn["stages"].get(key, [])
        bars = [(s[0], max(s[1] - s[0], MIN_BAR * end)) for s in spans]
        ax.broken_barh(bars, (row - 0.35, 0.7), facecolors=colour)
        for span in spans:
            if len(span) > 2 and span[2]:  # a tool's name
                ax.text(span[1], row, f" {span[2]}", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), [label for _key, label, _colour in rows], fontsize=9)
    ax.set_ylim(len(rows) - 0.4, -0.9)
    ax.grid(axis="x", alpha=0.3)
    timings = turn["timings"]
    total = timings.get("total", 0.0)
    mark, first = next(((m, timings[k]) for k, m in MARKS if timings.get(k) is not None),
                       ("", None))
    if first is not None:
        ax.axvline(first, color="black", linestyle="--", linewidth=1)
        left = first > 0.75 * end  # keep the label inside the plot
        ax.text(first, -0.65, f" {mark} {first:.2f} s ", fontsize=9, va="center",
                ha="right" if left else "left")
    ax.axvline(total, color="grey", linestyle=":", linewidth=1)
    heard = turn["transcript"] if len(turn["transcript"]) < 60 else turn["transcript"][:57] + "..."
    name = turn.get("clip") or turn.get("question", "")
    ax.set_title(f"{pipeline}: {name} \u201c{heard}\u201d, total {total:.2f} s",
                 loc="left", fontsize=10)
