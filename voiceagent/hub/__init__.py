"""`voiceagent hub`: one voiceagent for a house of Wyoming satellites, one room each.

Each `wyoming-satellite` (a Pi Zero in the kitchen, an old phone in the bedroom) is a Wyoming
server; the hub connects to it as Home Assistant does (it is the client): `run-satellite`,
then the satellite asks for a pipeline (`run-pipeline`) and streams its microphone as
`audio-chunk` events; the hub finds the end of speech, transcribes, runs the turn and sends
the answer back as `audio-start` / `audio-chunk` / `audio-stop`, with the pipeline's events
(`detection`, `transcript`, `synthesize`) on the way.

- discovery.py: the satellites of `[hub] satellites` (NAME=URI) and those found by zeroconf.
- link.py: one connection to one satellite, reconnected with back-off (one log line).
- stream.py: the satellite as microphone (a BlockSource) and speaker (a Player).
- room.py: one room: its own assistant and conversation, the kiosk front end on its stream.
- house.py: the rooms, the one model and speech models they share, and `voiceagent hub`.
"""
