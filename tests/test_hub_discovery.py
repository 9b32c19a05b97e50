"""The hub finds a real wyoming-satellite 1.0.0 by its own zeroconf announcement.

mDNS is multicast, so both run in a private network namespace (`unshare -n`) with a veth pair
of its own (the satellite on one end, the hub browsing on the other): nothing is sent to a
real network. Loopback alone will not do: it carries no multicast, so a browse there finds
nothing. The satellite records a PulseAudio sink of the test server (a filesystem socket,
reachable from the namespace).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.pulse import PulseServer
from tests.satellites import REPO, SATELLITE_PYTHON

pytestmark = [pytest.mark.audio]


SATELLITE_IP, HUB_IP = "10.77.0.1", "10.77.0.2"
"""The two ends of the namespace's veth pair."""
VETH = (f"ip link set lo up && ip link add sat0 type veth peer name hub0 && "
        f"ip addr add {SATELLITE_IP}/24 dev sat0 && ip addr add {HUB_IP}/24 dev hub0 && "
        f"ip link set sat0 up && ip link set hub0 up && "
        # a veth pair carries packets once both ends say LOWER_UP (not at once)
        f"for i in $(seq 100); do ip -o link show | grep hub0 | grep -q LOWER_UP && break; "
        f"sleep 0.1; done")


def test_a_satellite_announced_on_the_network_is_found_by_its_area(pulse: PulseServer) -> None:
    pulse.add_room("porch")
    mic = ("parec --device=porch_mic.monitor --rate=16000 --channels=1 --format=s16le --raw "
           "--latency-msec=20")
    satellite = (f"{SATELLITE_PYTHON} -m wyoming_satellite --name 'Porch Pi' --area Porch "
                 f"--uri tcp://{SATELLITE_IP}:10700 --zeroconf-host {SATELLITE_IP} "
                 f"--mic-command '{mic}' & sat=$!")
    child = f"{sys.executable} -c 'from tests.test_hub_discovery import child; child()'"
    command = f"{VETH} && {satellite} && {child}; kill $sat"
    done = subprocess.run(["unshare", "-n", "sh", "-c", command], cwd=REPO,
                          env={**os.environ, **pulse.env, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found == [{"room": "porch", "host": SATELLITE_IP, "port": 10700,
                      "found_by": "zeroconf"}], done.stderr[-3000:]


def child() -> None:
    """Inside the namespace: browse until the satellite is found (or 30 s; a
    loaded machine starts the satellite slowly), print it."""
    import asyncio
    import dataclasses

    from voiceagent.hub.discovery import Discovery, Place

    async def main() -> list[dict[str, object]]:
        found: list[Place] = []
        seen = asyncio.Event()

        async def add(place: Place) -> None:
            found.append(place)
            seen.set()

        discovery = Discovery(add, interfaces=[HUB_IP])
        assert await discovery.start()
        try:
            await asyncio.wait_for(seen.wait(), 30)
            await asyncio.sleep(2.0)  # announced again meanwhile: still found once
        except TimeoutError:
            pass
        await discovery.stop()
        return [dataclasses.asdict(p) for p in found]

    print(json.dumps(asyncio.run(main())))
