"""The shipped Caddyfile, run by Debian's Caddy in front of an application, guardsvc judging.

The device cookie of a new browser reaches the browser and never the
application; a blocked browser sees the block page itself (403), a blocked
script the JSON; guardsvc's own pages stay reachable under /guardsvc/.
"""
import json
import os
import subprocess
import sys

import pytest

from tests.support.debian_packages import unpacked_program
from tests.support.guarded_site import UPSTREAM, fetch
from tests.support.live import ROOT, LiveServer, free_port, wait_for_port

pytestmark = [pytest.mark.proxy, pytest.mark.database_agnostic]
SECRET = "caddy-test-secret-0123456789abcdefghij"
BLOCKED_SOURCE = "127.0.0.9"


@pytest.fixture(scope="module")
def caddy_site(app, tmp_path_factory):
    caddy = unpacked_program("caddy", "usr/bin/caddy")
    state = tmp_path_factory.mktemp("caddy")
    port, app_port = free_port(), free_port()
    guardsvc = LiveServer(workers=2, env={"GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_FORWARD_AUTH_SECRET": SECRET})
    config = (ROOT / "deploy/caddy/Caddyfile").read_text()
    for placeholder, value in {"@LISTEN@": f"http://127.0.0.1:{port}", "@GUARDSVC@": f"127.0.0.1:{guardsvc.port}",
                               "@APP@": f"127.0.0.1:{app_port}", "@SECRET@": SECRET, "@STATE@": str(state)}.items():
        config = config.replace(placeholder, value)
    (state / "Caddyfile").write_text(config)
    env = {**os.environ, "HOME": str(state), "XDG_DATA_HOME": str(state / "data"),
           "XDG_CONFIG_HOME": str(state / "config")}
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(app_port), "echo"])
    proxy = subprocess.Popen([str(caddy), "run", "--config", str(state / "Caddyfile"), "--adapter", "caddyfile"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(app_port, upstream, "application")
        wait_for_port(port, proxy, "caddy")
        yield port
    finally:
        for process in (proxy, upstream):
            process.terminate()
            process.wait(timeout=10)
        guardsvc.stop()


def test_a_new_browsers_device_cookie_reaches_the_browser_never_the_application(caddy_site):
    status, headers, body = fetch(caddy_site, "/halaman")
    assert status == 200 and json.loads(body)["app"] is True
    assert (headers["Set-Cookie"] or "").startswith("guardsvc_device=")
    reached = json.loads(body)["headers"]
    assert "Set-Cookie" not in reached and not any("guardsvc" in value for value in reached.values())
    # A browser that has its cookie gets no new one.
    status, headers, _ = fetch(caddy_site, "/halaman", headers={"Cookie": headers["Set-Cookie"].split(";")[0]})
    assert status == 200 and headers["Set-Cookie"] is None


def test_a_blocked_browser_sees_the_block_page_and_a_script_the_json(caddy_site, make_block):
    reference = make_block(network=BLOCKED_SOURCE, reason="Spam")
    status, headers, page = fetch(caddy_site, "/halaman", BLOCKED_SOURCE, {"Accept": "text/html,*/*;q=0.8"})
    assert status == 403 and headers["Content-Type"].startswith("text/html")
    assert reference in page and '"app"' not in page
    # Caddy names the page the browser wanted (X-Forwarded-Uri): the appeal link carries it.
    assert f'href="/guardsvc/banding?ref={reference}&amp;kembali=/halaman"' in page
    status, _, body = fetch(caddy_site, "/api/data", BLOCKED_SOURCE, {"Accept": "application/json"})
    assert status == 403 and json.loads(body)["reference"] == reference
    # The appeal pages stay reachable for the blocked client.
    assert fetch(caddy_site, "/guardsvc/banding", BLOCKED_SOURCE)[0] == 200
