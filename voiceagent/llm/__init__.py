"""The local language model's server: run it (server.py, its child process host.py), find or
share one (discovery.py, registry.py, health.py), and keep its fixed prompt prefix cached
(prompt_cache.py). Nothing here knows the assistant: the composition root (build.py) hands in
what it needs."""
