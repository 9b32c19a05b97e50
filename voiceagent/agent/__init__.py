"""The agent core: messages, tools, the capped tool loop, wire formats and sessions."""
