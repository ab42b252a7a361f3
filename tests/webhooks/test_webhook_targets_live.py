"""Webhooks never aimed at loopback, private, link-local or metadata addresses (unless the operator allows it).

Replayed with the real ``flask`` command: ``webhooks add`` refuses such a URL, and
``webhooks deliver`` resolves the host again at every delivery and refuses an
address that is not public (a name that resolves elsewhere now than when it was
added: DNS rebinding), while GUARDSVC_WEBHOOK_ALLOW_PRIVATE_TARGETS=true lets a
receiver on the same host through. The request goes to the address that was
checked, never to a second answer of the DNS.
"""
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select, update

from guardsvc.extensions import db
from guardsvc.storage import clock
from guardsvc.webhooks import sending, targets
from guardsvc.webhooks.models import HookDelivery, WebhookEndpoint
from tests.support.live import ROOT
from tests.support.webhook_receiver import ALLOW_PRIVATE, private_targets_allowed, receiver  # noqa: F401

pytestmark = [pytest.mark.live, pytest.mark.database_agnostic]
FLASK = str(Path(sys.executable).with_name("flask"))
REFUSED = "Alamat webhook ini menuju alamat yang tidak publik"


def flask(*args, allow_private=False, **env):
    """The ``flask --app guardsvc`` command as an operator runs it: (exit code, everything it printed)."""
    settings = {**os.environ, "GUARDSVC_WEBHOOK_ALLOW_PRIVATE_TARGETS": "false", **env,
                **(ALLOW_PRIVATE if allow_private else {})}
    done = subprocess.run([FLASK, "--app", "guardsvc", *args], cwd=ROOT, env=settings, capture_output=True,
                          text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def endpoints(app):
    with app.app_context():
        found = db.session.scalars(select(WebhookEndpoint.url)).all()
        db.session.remove()
        return found


@pytest.mark.parametrize("url, address", [
    ("http://127.0.0.1:8080/hook", "127.0.0.1"),
    ("http://localhost/hook", "127.0.0.1"),  # a name: refused by what it resolves to
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
    ("https://[fe80::1]/hook", "fe80::1"),
    ("http://10.1.2.3/hook", "10.1.2.3"),
])
def test_adding_a_private_target_is_refused(app, url, address):
    code, said = flask("webhooks", "add", url)
    assert code == 1 and REFUSED in said and f"({address})" in said and "Traceback" not in said, said
    assert "whsec_" not in said and endpoints(app) == []


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.8.9.10", "0.0.0.0", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "169.254.170.2",
    "100.100.100.200", "168.63.129.16", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fe80::1%eth0",
    "fc00::1", "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::1", "ff02::1",
])
def test_what_is_not_a_public_address(address):
    assert not targets.is_public(address)


@pytest.mark.parametrize("address", ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_targets(address):
    assert targets.is_public(address)


def test_a_public_name_and_address_are_still_added(app):
    code, said = flask("webhooks", "add", "https://hooks.example.org/guardsvc")  # does not resolve here: checked later
    assert code == 0 and "its secret (shown only now):\nwhsec_" in said, said
    code, said = flask("webhooks", "add", "https://1.1.1.1/guardsvc")
    assert code == 0, said
    assert endpoints(app) == ["https://hooks.example.org/guardsvc", "https://1.1.1.1/guardsvc"]


def test_the_operator_may_allow_private_targets(app, receiver):  # noqa: F811
    code, said = flask("webhooks", "add", receiver.url, allow_private=True)
    assert code == 0, said
    assert endpoints(app) == [receiver.url], said


def test_delivery_resolves_again_and_refuses_a_private_address(app, runner, make_block, receiver,  # noqa: F811
                                                               private_targets_allowed):  # noqa: F811
    # Added while the name was public (here: while private targets were allowed); it resolves to loopback now.
    url = f"http://localhost:{receiver.port}/hooks/guardsvc"
    assert runner.invoke(args=["webhooks", "add", url, "--events", "block.created"]).exit_code == 0
    make_block(network="198.51.100.77")
    code, said = flask("webhooks", "deliver")
    assert code == 0 and "delivered 0, retrying 1, failed 0" in said, said
    assert "private webhook targets are not allowed" in said
    assert receiver.requests == []
    with app.app_context():
        row = db.session.scalars(select(HookDelivery)).one()
        assert "refused: localhost is a private address" in row.last_error and row.status == "pending"
        db.session.execute(update(HookDelivery).values(next_attempt_at=clock.utcnow()))
        db.session.commit()
    # The operator allows private targets: the same row goes out.
    code, said = flask("webhooks", "deliver", allow_private=True)
    assert code == 0 and "delivered 1, retrying 0, failed 0" in said, said
    [request] = receiver.requests
    assert request.event["type"] == "block.created"


def test_the_request_goes_to_the_address_that_was_checked(monkeypatch, receiver):  # noqa: F811
    """DNS rebinding: the first answer public, every later one loopback. Nothing reaches loopback."""
    answers = []
    real = socket.getaddrinfo

    def rebinding(host, port, *args, **kwargs):
        if host != "rebind.example":
            return real(host, port, *args, **kwargs)
        address = "192.0.0.9" if not answers else "127.0.0.1"  # 192.0.0.9/32: a global address of the IANA
        answers.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    with pytest.raises(sending.DeliveryFailed):
        sending.post(f"http://rebind.example:{receiver.port}/hook", "{}", {}, 1)
    assert answers == ["192.0.0.9"] and receiver.requests == []
    # Allowed private targets: an ordinary connection, to whatever the name resolves to.
    assert sending.post(f"http://rebind.example:{receiver.port}/hook", "{}", {}, 5, allow_private=True) == 204
    assert len(receiver.requests) == 1
