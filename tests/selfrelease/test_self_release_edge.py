"""A self-release honoured where guardsvc is not asked in the request itself: through the shipped nginx
files (its copy of the block list, forward auth) within 2 s, and in the CrowdSec decision stream."""
import http.client
import json
import time
import uuid

import pytest

from tests.support.guarded_site import guarded_site
from tests.support.self_release_support import CHALLENGE, RELEASE, solve

SECRET = "self-release-edge-secret-0123456789ab"
RANGE = "127.0.17.0/24"
VISITOR, NEIGHBOUR = "127.0.17.5", "127.0.17.6"
HONOURED_WITHIN = 2.0


def through(port, method, path, source, cookie, body=None):
    """One request through nginx from ``source`` with a device cookie: (status, text)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=(source, 0))
    headers = {"Cookie": f"guardsvc_device={cookie}", "Accept": "text/html"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


@pytest.fixture()
def nginx_stack(app, tmp_path):
    """nginx with two workers, built from deploy/nginx, in front of an application and guardsvc."""
    with guarded_site(tmp_path, SECRET, {"GUARDSVC_FORWARD_AUTH_SECRET": SECRET}, workers=2) as site:
        yield site.port


@pytest.mark.proxy
@pytest.mark.live
def test_a_release_through_nginx_is_honoured_within_two_seconds(nginx_stack, make_block):
    port, cookie = nginx_stack, str(uuid.uuid4())
    reference = make_block(network=RANGE, self_release=True)
    deadline = time.monotonic() + 15  # the edge's copy of the list arrives within a second or so
    while through(port, "GET", "/toko", VISITOR, cookie)[0] != 403:
        assert time.monotonic() < deadline, "the block was never enforced"
        time.sleep(0.2)
    status, page = through(port, "GET", "/toko", VISITOR, cookie)
    assert reference in page and 'id="buka-sendiri"' in page and "/guardsvc/lepas-blokir" in page
    status, body = through(port, "GET", "/guardsvc" + CHALLENGE, VISITOR, cookie)
    assert status == 200, body
    status, body = through(port, "POST", "/guardsvc" + RELEASE, VISITOR, cookie,
                           {"altcha": solve(json.loads(body)["data"]["challenge"])})
    released_at = time.monotonic()
    assert status == 201, body
    while through(port, "GET", "/toko", VISITOR, cookie) != (200, "upstream ok"):
        assert time.monotonic() - released_at < HONOURED_WITHIN, "the release was not honoured in time"
        time.sleep(0.05)
    # Every request from then on, whichever nginx worker takes it; and only for this address and device.
    assert all(through(port, "GET", f"/toko?{n}", VISITOR, cookie)[0] == 200 for n in range(10))
    assert through(port, "GET", "/toko", VISITOR, str(uuid.uuid4()))[0] == 403
    assert through(port, "GET", "/toko", NEIGHBOUR, cookie)[0] == 403


def test_the_crowdsec_stream_sends_the_range_minus_the_released_address(client, runner, make_block):
    key = runner.invoke(args=["bouncers", "add", "firewall"]).output.strip().splitlines()[-1]
    make_block(network="192.0.2.0/30", self_release=True)
    stream = "/crowdsec/v1/decisions/stream?startup=true"
    assert [d["value"] for d in client.get(stream, headers={"X-Api-Key": key}).get_json()["new"]] == ["192.0.2.0/30"]
    who = {"headers": {"X-Device-Id": "ponsel-budi"}, "environ_base": {"REMOTE_ADDR": "192.0.2.1"}}
    payload = solve(client.get(CHALLENGE, **who).get_json()["data"]["challenge"])
    assert client.post(RELEASE, json={"altcha": payload}, **who).status_code == 201
    sent = sorted(d["value"] for d in client.get(stream, headers={"X-Api-Key": key}).get_json()["new"])
    assert sent == ["192.0.2.0", "192.0.2.2/31"]
