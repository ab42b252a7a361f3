"""A real `flask worker` process: it delivers mail and applies the retention rules, then stops cleanly."""
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
from tests.smtp import smtp_server  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
FLASK = str(Path(sys.executable).with_name("flask"))
pytestmark = pytest.mark.live


def wait_for(check, seconds=20):
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.1)
    return check()


def test_worker_delivers_mail_and_purges(app, make_ticket, smtp_server):  # noqa: F811
    number = make_ticket(email="budi@example.com").ticket_number
    with app.app_context():
        appeals.decide_ticket(number, "reject")  # queues the decision e-mail
        db.session.commit()

    def erased():
        with app.app_context():
            ticket = db.session.query(UnblockTicket).filter_by(ticket_number=number).one()
            db.session.remove()
            return ticket.personal_data_erased_at is not None

    # A retention period of 0 days: the decided ticket is due at once.
    env = {**os.environ, **smtp_server.env, "GUARDSVC_MAIL_POLL_SECONDS": "1", "GUARDSVC_RETENTION_DAYS": "0",
           "GUARDSVC_LOG_LEVEL": "INFO"}
    process = subprocess.Popen([FLASK, "--app", "guardsvc", "worker"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert wait_for(lambda: smtp_server.inbox.to("budi@example.com"))
        assert wait_for(erased)
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=20)[0]
    assert process.returncode == 0, output
    assert "worker started" in output and "worker stopped" in output
