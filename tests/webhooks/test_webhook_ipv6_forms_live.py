"""IPv6 forms that reach a private IPv4 address or a local network are never webhook targets.

Local-use NAT64 (``64:ff9b:1::/48``), SIIT's IPv4-translated addresses
(``::ffff:0:a.b.c.d``), IPv4-compatible addresses (``::a.b.c.d``) and site-local
addresses (``fec0::/10``): a translator or an old rule can take each to a private
address, and Python's ``is_global`` calls them global or not depending on its
version. Refused at ``webhooks add`` (the real ``flask`` command) and at delivery,
before any connection is opened. And an IPv6 literal without a port is sent to
that address on the scheme's port, never read as ``host:port``.

No test here opens a connection to any of these addresses (this machine has a
default IPv6 route): delivery runs with ``socket.create_connection`` recording
where it would have gone.
"""
import socket

import pytest
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.webhooks import sending, targets
from guardsvc.webhooks.models import HookDelivery
from tests.webhooks.test_webhook_targets_live import REFUSED, endpoints, flask
from tests.support.webhook_receiver import private_targets_allowed  # noqa: F401

pytestmark = [pytest.mark.live, pytest.mark.database_agnostic]

FORMS = [
    ("http://[64:ff9b:1::a9fe:a9fe]/hook", "64:ff9b:1::a9fe:a9fe"),  # local-use NAT64 of 169.254.169.254
    ("http://[::ffff:0:a9fe:a9fe]/hook", "::ffff:0:a9fe:a9fe"),  # SIIT: 169.254.169.254
    ("http://[::ffff:0:7f00:1]:8080/hook", "::ffff:0:7f00:1"),  # SIIT: 127.0.0.1
    ("http://[::10.1.2.3]/hook", "::a01:203"),  # IPv4-compatible: 10.1.2.3
    ("https://[::8.8.8.8]/hook", "::808:808"),  # IPv4-compatible, even of a public address
    ("http://[fec0::1]/hook", "fec0::1"),  # site-local
]


@pytest.mark.parametrize("url, address", FORMS)
def test_adding_an_ipv6_form_of_a_private_target_is_refused(app, url, address):
    code, said = flask("webhooks", "add", url)
    assert code == 1 and REFUSED in said and f"({address})" in said and "Traceback" not in said, said
    assert endpoints(app) == []


@pytest.mark.parametrize("address", [
    "64:ff9b:1::a9fe:a9fe", "64:ff9b:1::808:808", "::ffff:0:7f00:1", "::ffff:0:808:808", "::127.0.0.1",
    "::8.8.8.8", "::1:5000", "fec0::1", "feff::1",
])
def test_what_these_forms_are_not(address):
    assert not targets.is_public(address)


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "::ffff:8.8.8.8", "2606:4700:4700::1111"])
def test_the_well_known_forms_of_public_addresses_stay_targets(address):
    assert targets.is_public(address)


@pytest.fixture()
def connections(monkeypatch):
    """Where the sender would have connected; every connection is refused, none is opened."""
    made = []

    def create_connection(address, *args, **kwargs):
        made.append(address[:2])
        raise ConnectionRefusedError(111, "refused by the test")

    monkeypatch.setattr(socket, "create_connection", create_connection)
    return made


def test_delivery_refuses_them_before_connecting(app, runner, make_block, connections,
                                                 private_targets_allowed, monkeypatch):  # noqa: F811
    # Added while private targets were allowed; the operator has turned that off since.
    for url, _ in FORMS:
        assert runner.invoke(args=["webhooks", "add", url, "--events", "block.created"]).exit_code == 0
    make_block(network="198.51.100.78")
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOW_PRIVATE_TARGETS", False)
    result = runner.invoke(args=["webhooks", "deliver"])
    assert result.exit_code == 0 and f"delivered 0, retrying {len(FORMS)}, failed 0" in result.output, result.output
    assert connections == []
    with app.app_context():
        errors = db.session.scalars(select(HookDelivery.last_error)).all()
    assert len(errors) == len(FORMS) and all(error.startswith("refused: ") for error in errors), errors


def test_an_ipv6_literal_without_a_port_is_not_read_as_host_and_port(connections):
    # Private targets allowed: the connection goes where the URL says, on the scheme's port.
    for url, expected in [("http://[2001:db8::50]/hook", ("2001:db8::50", 80)),
                          ("https://[2001:db8::1111]/hook", ("2001:db8::1111", 443))]:
        with pytest.raises(sending.DeliveryFailed):
            sending.post(url, "{}", {}, 1, allow_private=True)
        assert connections.pop() == expected


def test_the_request_to_a_checked_ipv6_literal_names_it_whole(monkeypatch):
    """A public literal without a port: checked, connected to on port 80, and its Host header is that address.

    The connection is made to a listener of the test's on loopback instead, which reads the request.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    made, connect = [], socket.create_connection

    def create_connection(address, *args, **kwargs):
        made.append(address[:2])
        return connect(listener.getsockname(), *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)
    with listener:
        with pytest.raises(sending.DeliveryFailed):  # the listener never answers
            sending.post("http://[2606:4700:4700::1111]/hook", "{}", {}, 1)
        accepted, _ = listener.accept()
        with accepted:
            accepted.settimeout(5)
            head = accepted.recv(65536).decode("latin-1")
    assert made == [("2606:4700:4700::1111", 80)]
    assert "\r\nHost: [2606:4700:4700::1111]\r\n" in head, head
