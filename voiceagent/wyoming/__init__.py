"""Wyoming, both ways: Home Assistant's voice protocol.

- `voiceagent wyoming` (server.py) offers speech to text (asr.py), text to speech (tts.py) and
  the whole assistant as an intent handler (handle.py) to Home Assistant or another machine,
  described in `info` (info.py) and announced on the LAN by zeroconf (announce.py).
- `[stt] engine = "wyoming"` / `[tts] engine = "wyoming"` use a remote Wyoming service instead
  of the bundled models (client.py), falling back to the local ones while it is down.

wire.py holds what both directions share: reading events that may be garbage, and PCM audio
in the shapes the protocol allows. The `wyoming` library itself is imported only here.
"""
