"""Sound devices through sounddevice: microphone recorder, players, device lookup, chimes."""
