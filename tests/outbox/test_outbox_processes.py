"""Real deliverer processes: two at once never send a message twice; the loop stops cleanly."""
import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.support.smtp import SmtpServer
from tests.outbox.test_outbox import queue, rows

ROOT = Path(__file__).resolve().parents[2]
FLASK = str(Path(sys.executable).with_name("flask"))
pytestmark = pytest.mark.live


class SlowInbox:
    """Takes a moment per message, so concurrent deliverers really overlap."""

    def __init__(self, inbox):
        self.inbox = inbox

    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(0.01)
        return await self.inbox.handle_DATA(server, session, envelope)


@pytest.fixture()
def slow_smtp():
    server = SmtpServer()
    inbox = server.inbox
    server.inbox = SlowInbox(inbox)
    server.start()
    server.inbox = inbox
    yield server
    server.stop()


def deliverer(smtp, *args):
    env = {**os.environ, **smtp.env, "GUARDSVC_MAIL_POLL_SECONDS": "1", "GUARDSVC_LOG_LEVEL": "INFO"}
    return subprocess.Popen([FLASK, "--app", "guardsvc", "mail", "deliver", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def outbox_ids(messages):
    return [int(re.match(r"<guardsvc-outbox-(\d+)-", m["Message-ID"]).group(1)) for m in messages]


def test_two_deliverers_never_send_one_message_twice(app, slow_smtp):
    ids = queue(app, 40)
    processes = [deliverer(slow_smtp, "--once") for _ in range(2)]
    outputs = [p.communicate(timeout=120)[0] for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    received = Counter(outbox_ids(slow_smtp.inbox.messages))
    assert sorted(received) == ids
    assert max(received.values()) == 1
    assert {row.status for row in rows(app)} == {"sent"}
    sent_counts = [int(re.search(r"sent (\d+)", out).group(1)) for out in outputs]
    assert sum(sent_counts) == 40


def test_deliverer_loop_delivers_new_mail_and_stops_on_sigterm(app, slow_smtp):
    process = deliverer(slow_smtp)
    try:
        for line in process.stdout:  # queue only once the loop runs, so the mail is new to it
            if "mail deliverer started" in line:
                break
        [message_id] = queue(app)
        deadline = time.monotonic() + 20
        while not slow_smtp.inbox.messages and time.monotonic() < deadline:
            time.sleep(0.1)
        assert outbox_ids(slow_smtp.inbox.messages) == [message_id]
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=20)[0]
    assert process.returncode == 0, output
