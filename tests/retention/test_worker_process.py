"""A real `flask worker` process: it delivers mail and webhooks, runs unbans and applies the retention rules,
then stops cleanly."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guardsvc.appeals import service as appeals
from guardsvc.appeals.models import UnblockTicket
from guardsvc.extensions import db
from tests.support.smtp import smtp_server  # noqa: F401
from tests.webhooks.test_fail2ban_unban import FAKE_FAIL2BAN, calls_of
from tests.support.webhook_receiver import ALLOW_PRIVATE, private_targets_allowed, receiver  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
FLASK = str(Path(sys.executable).with_name("flask"))
pytestmark = pytest.mark.live


def wait_for(check, seconds=20):
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.1)
    return check()


@pytest.mark.usefixtures("private_targets_allowed")
def test_worker_sends_mail_and_webhooks_unbans_and_purges(app, runner, make_ticket, make_block,
                                                          smtp_server, receiver, tmp_path, monkeypatch):  # noqa: F811
    script, calls = tmp_path / "fail2ban-client", tmp_path / "calls.jsonl"
    script.write_text(FAKE_FAIL2BAN)  # fails the first time
    command = f"{sys.executable} {script} {calls} unban {{ip}}"
    monkeypatch.setitem(app.config, "FAIL2BAN_UNBAN_COMMAND", tuple(command.split()))  # where approvals happen
    secret = runner.invoke(args=["webhooks", "add", receiver.url, "--events", "ticket.decided"]).output.split()[-1]
    make_block(network="203.0.113.9")
    number = make_ticket(email="budi@example.com", ip="203.0.113.9").ticket_number
    with app.app_context():
        appeals.decide_ticket(number, "approve")  # queues the decision e-mail, the webhook and the unban
        db.session.commit()

    def erased():
        with app.app_context():
            ticket = db.session.query(UnblockTicket).filter_by(ticket_number=number).one()
            db.session.remove()
            return ticket.personal_data_erased_at is not None

    # A retention period of 0 days: the decided ticket is due at once.
    env = {**os.environ, **smtp_server.env, "GUARDSVC_MAIL_POLL_SECONDS": "1", "GUARDSVC_RETENTION_DAYS": "0",
           "GUARDSVC_WEBHOOK_POLL_SECONDS": "0.2", "GUARDSVC_WEBHOOK_RETRY_SECONDS": "0.2",
           "GUARDSVC_FAIL2BAN_UNBAN_COMMAND": command, "GUARDSVC_LOG_LEVEL": "INFO", **ALLOW_PRIVATE}
    process = subprocess.Popen([FLASK, "--app", "guardsvc", "worker"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert wait_for(lambda: smtp_server.inbox.to("budi@example.com"))
        assert wait_for(erased)
        assert wait_for(lambda: receiver.requests)
        assert wait_for(lambda: len(calls_of(calls)) == 2)  # failed once, then done
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=20)[0]
    assert process.returncode == 0, output
    assert "worker started" in output and "worker stopped" in output
    [webhook] = receiver.requests
    assert webhook.verified(secret)["data"]["ticket_number"] == number
    assert calls_of(calls)[-1] == ["unban", "203.0.113.9"]
    assert "webhooks: delivered" in output and secret not in output

