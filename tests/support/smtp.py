"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives."""
import email
import email.policy
import threading

import pytest
from aiosmtpd.controller import Controller

from tests.support.live import free_port


class Inbox:
    """Messages received, as ``email.message.EmailMessage`` objects."""

    def __init__(self):
        self.messages = []
        self.refuse_next = None  # an SMTP reply like "550 ..." to give the next message
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        if self.refuse_next:
            reply, self.refuse_next = self.refuse_next, None
            return reply
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address, subject_prefix=""):
        """Messages to ``address``, optionally only those whose subject starts with ``subject_prefix``."""
        return [m for m in self.messages if m["To"] == address and m["Subject"].startswith(subject_prefix)]


class SmtpServer:
    """Start, stop and start again on the same port (to simulate an outage)."""

    def __init__(self):
        self.port = free_port()
        self.inbox = Inbox()
        self.controller = None

    def start(self):
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self):
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def env(self):
        """Settings for a process that should deliver to this server."""
        return {"GUARDSVC_MAIL_SERVER": "127.0.0.1", "GUARDSVC_MAIL_PORT": str(self.port)}


@pytest.fixture()
def smtp_server(app, monkeypatch):
    """A running SMTP server; the test app delivers to it."""
    server = SmtpServer().start()
    monkeypatch.setitem(app.config, "MAIL_SERVER", "127.0.0.1")
    monkeypatch.setitem(app.config, "MAIL_PORT", server.port)
    monkeypatch.setitem(app.config, "MAIL_TIMEOUT_SECONDS", 5)
    yield server
    server.stop()


def text_body(message):
    """The plain-text part of a received message."""
    return message.get_body(preferencelist=("plain",)).get_content()


def html_body(message):
    """The HTML part of a received message."""
    return message.get_body(preferencelist=("html",)).get_content()
