"""Speech: faster-whisper (stt), piper (tts), Silero VAD, sentence splitting, speakable text."""
