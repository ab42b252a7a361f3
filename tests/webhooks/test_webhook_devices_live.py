"""Replayed against a real gunicorn: a device block's webhooks never carry the device cookie's value.

The device cookie still makes a browser "known" (signin/known_browsers.py), so its
value is a secret. An administrator who blocks a browser by its cookie value (copied
from a ticket, a log, the person's own report) names it like any device id; the
``block.created`` and ``block.lifted`` bodies, stored in the queue and sent to every
receiver, then held the value itself. They name every device by its fingerprint.
"""
import pytest
import requests
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.web.identity import fingerprint
from guardsvc.webhooks.models import HookDelivery
from tests.support.live import LiveServer
from tests.support.webhook_receiver import private_targets_allowed, receiver  # noqa: F401

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def server(app):
    """A gunicorn that reads the subscribed webhook events at every event (an endpoint added here counts at once)."""
    started = LiveServer(workers=2, env={"GUARDSVC_WEBHOOK_REFRESH_SECONDS": "0"})
    yield started
    started.stop()


def bodies(app):
    with app.app_context():
        found = db.session.scalars(select(HookDelivery.body).order_by(HookDelivery.id)).all()
        db.session.remove()
        return found


@pytest.mark.usefixtures("private_targets_allowed")
def test_block_events_name_a_device_by_its_fingerprint_only(app, server, runner, bearer, receiver):  # noqa: F811
    added = runner.invoke(args=["webhooks", "add", receiver.url, "--events", "block.created,block.lifted"])
    assert added.exit_code == 0, added.output
    visitor = requests.Session()
    visitor.get(server.url + "/banding", timeout=30)
    cookie = visitor.cookies["guardsvc_device"]
    _, admin = bearer("admin")
    references = []
    for device in (cookie, "kiosk-7"):  # a browser's cookie; a device id a client named itself
        made = requests.post(server.url + "/api/admin/blocks", json={"device_id": device}, headers=admin, timeout=30)
        assert made.status_code == 201, made.text[:300]
        references.append(made.json()["data"]["reference"])
    lifted = requests.post(f"{server.url}/api/admin/blocks/{references[0]}/lift", json={}, headers=admin, timeout=30)
    assert lifted.status_code == 200, lifted.text[:300]

    queued = bodies(app)
    assert len(queued) == 3 and all(cookie not in body for body in queued)
    assert runner.invoke(args=["webhooks", "deliver"]).output.strip() == "delivered 3, retrying 0, failed 0"
    sent = [(request.event["type"], request.event["data"]["reference"], request.event["data"]["device"])
            for request in receiver.requests]
    assert sent == [("block.created", references[0], fingerprint(cookie)),
                    ("block.created", references[1], fingerprint("kiosk-7")),
                    ("block.lifted", references[0], fingerprint(cookie))]
    assert all(cookie not in request.body for request in receiver.requests)
