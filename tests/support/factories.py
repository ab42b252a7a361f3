"""Factories for users, tokens, tickets and blocks, as pytest fixtures; the one appeal-submit helper."""
import itertools

import pytest

from guardsvc.accounts import service as accounts
from guardsvc.extensions import db

_counter = itertools.count(1)
PASSWORD = "kata-sandi-rahasia-123"
SUBMIT = "/api/guard/unblock-tickets/submit"


@pytest.fixture()
def make_user(app):
    """``make_user(role="user", email=None)`` -> committed User."""
    def make(role="user", email=None, name="Pengguna Uji", password=PASSWORD):
        with app.app_context():
            user = accounts.create_user(email or f"user{next(_counter)}@example.com", name, password, role)
            return _committed(user)
    return make


def _committed(record):
    """Commit, then hand ``record`` out loaded and detached, usable after its app context ends."""
    db.session.commit()
    db.session.refresh(record)
    db.session.expunge(record)
    return record


@pytest.fixture()
def make_token(app):
    """``make_token(user)`` -> plain bearer token."""
    def make(user, name="uji"):
        with app.app_context():
            plain, _ = accounts.create_token(db.session.merge(user), name, client=None)
            db.session.commit()
            return plain
    return make


@pytest.fixture()
def bearer(make_user, make_token):
    """``bearer(role="user")`` -> (user, headers with Authorization)."""
    def make(role="user", **kwargs):
        user = make_user(role=role, **kwargs)
        return user, {"Authorization": f"Bearer {make_token(user)}"}
    return make


@pytest.fixture()
def make_block(app):
    """``make_block(network=..., device_id=..., ...)`` -> reference of a committed block."""
    from guardsvc.blocks import service as blocks

    def make(**kwargs):
        with app.app_context():
            block = blocks.create_block(**kwargs)
            db.session.commit()
            return block.reference
    return make


@pytest.fixture()
def make_allow(app):
    """``make_allow(network=..., device_id=..., ...)`` -> id of a committed allow entry."""
    from guardsvc.blocks.allows import add_allow_entry

    def make(**kwargs):
        with app.app_context():
            entry = add_allow_entry(**kwargs)
            db.session.commit()
            return entry.id
    return make


@pytest.fixture()
def make_ticket(app):
    """``make_ticket(ip=..., device=None, **fields)`` -> committed pending UnblockTicket (detached).

    Made by the service, as a submission from that client would be: it records
    the active block that applies, and it refuses a second pending ticket.
    """
    from guardsvc.appeals import service as appeals
    from guardsvc.web.identity import Client

    def make(ip="198.51.100.7", device=None, local_ip=None, user_agent="pytest", **fields):
        with app.app_context():
            client = Client(ip, device, local_ip, user_agent)
            return _committed(appeals.submit_ticket(client, **submit_body(**fields)))
    return make


def submit_body(**overrides):
    body = {"name": "Budi Santoso", "email": "budi@example.com", "phone": "0812-3456-7890",
            "reason": "Saya tidak merasa melakukan pelanggaran. Referensi BLK-0000ABCD."}
    body.update(overrides)
    return body


def submit_ticket(client, ip="198.51.100.7", device=None, headers=None, **body):
    """``POST`` an appeal (``submit_body`` with ``body`` over it) from ``ip``; returns the response."""
    headers = {"Accept": "application/json", **(headers or {})}
    if device:
        headers["X-Device-Id"] = device
    return client.post(SUBMIT, json=submit_body(**body), headers=headers, environ_base={"REMOTE_ADDR": ip})
