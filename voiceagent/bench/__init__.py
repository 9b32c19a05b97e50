"""The bench: drive real turns, time their stages, report and plot them.

`run` plays question recordings through the assistant, `report` turns events into figures,
`plot` draws the stage waterfall (matplotlib, imported only there). Nothing is imported here,
so `python -m voiceagent.bench.<module>` loads only what that module needs.
"""
