"""The zeroconf announcement, found by zeroconf's own resolver the way Home Assistant finds it.

mDNS is multicast, so the test runs in a private network namespace (`unshare -n`) whose only
interface is its own loopback: nothing is ever sent to a real network.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from tests.wyoming_servers import REPO


def in_namespace(setup: str) -> dict:
    """Run `child` in a new network namespace after the `setup` commands; its findings."""
    command = f"{setup} && {sys.executable} -c " \
              "'from tests.test_wyoming_announce import child; child()'"
    done = subprocess.run(["unshare", "-n", "sh", "-c", command], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    return {**json.loads(done.stdout.splitlines()[-1]), "log": done.stderr}


def test_the_server_is_announced_and_found_by_name() -> None:
    found = in_namespace("ip link set lo up")
    assert found["address"] == ["127.0.0.1"] and found["port"] == 10300
    assert found["asr"] == ["voiceagent"]  # what answers there is our server
    assert "announced as kitchen._wyoming._tcp.local. at 127.0.0.1 port 10300" in found["log"]


def test_with_no_network_at_all_the_server_still_starts_and_says_how_to_add_it() -> None:
    found = in_namespace("true")  # loopback down: no address anywhere
    assert found["serving"] and found["address"] is None
    assert "could not announce the server (this machine has no IPv4 address); add it in " \
           "Home Assistant by host and port instead" in found["log"]


def child() -> None:
    """Inside the namespace: serve on 0.0.0.0:10300, look the service up, describe what
    answers at the address found."""
    import logging

    from zeroconf.asyncio import AsyncZeroconf

    from tests.wyoming_servers import describe
    from voiceagent.config import Config
    from voiceagent.testing import FakeSynthesizer, FakeTranscriber
    from voiceagent.wyoming.info import build_info
    from voiceagent.wyoming.server import Services, serve_async

    logging.basicConfig(level=logging.INFO)

    async def main() -> dict:
        services = Services(build_info(Config(), handle=False), FakeTranscriber(),
                            FakeSynthesizer(), None)
        ready = asyncio.Event()
        server = asyncio.create_task(serve_async(services, "tcp://0.0.0.0:10300", announce=True,
                                                 name="kitchen", ready=ready))
        await ready.wait()
        serving = not server.done()
        address, port, asr = None, None, None
        try:
            zc = AsyncZeroconf(interfaces=["127.0.0.1"])
            info = await zc.async_get_service_info(
                "_wyoming._tcp.local.", "kitchen._wyoming._tcp.local.", timeout=3000)
            await zc.async_close()
            if info is not None:
                address, port = info.parsed_addresses(), info.port
            asr = await asyncio.to_thread(lambda: [p.name for p in describe(10300).asr])
        except OSError:  # no network: neither the resolver nor a client can connect
            pass
        server.cancel()
        await asyncio.gather(server, return_exceptions=True)
        return {"serving": serving, "address": address, "port": port, "asr": asr}

    print(json.dumps(asyncio.run(main())))
