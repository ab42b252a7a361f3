"""With no GUARDSVC_FORWARD_AUTH_SECRET set, the proxy's doors still answer the proxy alone.

guardsvc generates a secret into its instance folder at the first start and requires it always;
``flask edge secret`` prints it for the proxy's configuration. The shipped same-host nginx layout
is the case that matters: there every visitor's request reaches guardsvc from loopback, so an
address-based exception would hand the block list (and a block probe) to anyone.
Real processes: the ``flask`` command, gunicorn, and nginx rendered with the printed secret.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.support.guarded_site import guarded_site
from tests.support.live import ROOT
from tests.deploy.test_nginx_forward_auth import fetch

pytestmark = [pytest.mark.proxy, pytest.mark.database_agnostic]
FREE, BLOCKED = "127.0.0.2", "127.0.0.3"
DEVICE = "perangkat-rahasia-pengunjung"
DOORS = ("/edge/v1/decisions", "/api/guard/forward-auth")


def edge_secret(env):
    """``flask --app guardsvc edge secret`` as an operator runs it: (stdout, stderr)."""
    done = subprocess.run([str(Path(sys.executable).with_name("flask")), "--app", "guardsvc", "edge", "secret"],
                          cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


@pytest.fixture(scope="module")
def stack(app, tmp_path_factory):
    """guardsvc without a configured secret (its own instance folder), nginx given the printed one."""
    instance = tmp_path_factory.mktemp("instance")
    env = {"GUARDSVC_INSTANCE_PATH": str(instance), "GUARDSVC_FORWARD_AUTH_SECRET": ""}
    printed, origin = edge_secret(env)
    secret = printed.strip()
    prefix = tmp_path_factory.mktemp("nginx")
    with guarded_site(prefix, secret, env) as site:
        yield {"port": site.port, "guardsvc": site.guardsvc, "secret": secret, "printed": printed,
               "origin": origin, "instance": instance, "env": env}
    shutil.rmtree(prefix, ignore_errors=True)


def test_the_secret_is_generated_once_owner_only_and_printed_alone(stack):
    kept = stack["instance"] / "forward_auth_secret"
    assert kept.stat().st_mode & 0o777 == 0o600
    assert stack["printed"] == kept.read_text().strip() + "\n"  # stdout holds the secret alone
    assert len(stack["secret"]) >= 43 and "generated" in stack["origin"] and str(kept) in stack["origin"]
    # The server started on it and a second run keeps it (every worker, every restart agrees).
    assert edge_secret(stack["env"])[0] == stack["printed"]


def test_a_visitor_through_the_proxy_can_neither_read_the_list_nor_probe(stack, make_block):
    make_block(device_id=DEVICE)
    make_block(network=BLOCKED)
    guessed = {"X-Guardsvc-Secret": "rahasia-tebakan"}
    for door in DOORS:
        for headers in ({}, guessed, {"X-Device-Id": DEVICE}):
            status, _, body = fetch(stack["port"], "/guardsvc" + door, FREE, headers)
            assert status == 401, (door, headers)
            assert DEVICE not in body and BLOCKED not in body and "Rahasia forward auth" in body


def test_a_loopback_caller_without_the_secret_is_refused(stack, make_block):
    make_block(network=BLOCKED)
    url = stack["guardsvc"].url
    for door in DOORS:
        for headers in ({}, {"X-Guardsvc-Secret": ""}, {"X-Guardsvc-Secret": stack["secret"][:-1]}):
            refused = requests.get(url + door, headers=headers, timeout=30)
            assert refused.status_code == 401 and refused.json()["success"] is False, (door, headers)
    proxy = {"X-Guardsvc-Secret": stack["secret"]}
    pulled = requests.get(url + DOORS[0], headers=proxy, timeout=30)
    assert pulled.status_code == 200 and pulled.headers["Content-Type"].startswith("text/plain")
    judged = requests.get(url + DOORS[1], headers={**proxy, "X-Forwarded-For": BLOCKED}, timeout=30)
    assert judged.status_code == 403 and judged.headers["X-Guardsvc-Reference"]


def test_the_proxy_configured_with_the_printed_secret_still_judges(stack, make_block):
    reference = make_block(network=BLOCKED)
    status, _, body = fetch(stack["port"], "/halaman", BLOCKED)
    assert status == 403 and reference in body
    assert fetch(stack["port"], "/", FREE)[:3:2] == (200, "upstream ok")
