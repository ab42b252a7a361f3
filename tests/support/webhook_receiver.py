"""A real HTTP receiver of webhooks on loopback: it keeps every POST and answers as it is told.

Like tests.support.smtp's server, it can stop and start again on the same port: while
stopped, a delivery meets "connection refused".
"""
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from standardwebhooks import Webhook

from tests.support.live import free_port


class Received:
    """One POST as the receiver got it."""

    def __init__(self, path, headers, body):
        self.path, self.headers, self.body = path, headers, body

    @property
    def event(self):
        return json.loads(self.body)

    @property
    def id(self):
        return self.headers["webhook-id"]

    def verified(self, secret):
        """The payload, once ``standardwebhooks`` has checked the signature (and the timestamp) with ``secret``."""
        return Webhook(secret).verify(self.body, self.headers)


class Receiver:
    """Answers each POST with the next status of ``statuses`` (then 204), after ``delay`` seconds."""

    def __init__(self):
        self.port = free_port()
        self.requests = []
        self.statuses = []
        self.delay = 0.0
        self.server = None
        self._lock = threading.Lock()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/hooks/guardsvc?via=test"

    def start(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
                time.sleep(receiver.delay)
                with receiver._lock:
                    receiver.requests.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()},
                                                      body))
                    status = receiver.statuses.pop(0) if receiver.statuses else 204
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def ids(self):
        """How many times each webhook-id arrived."""
        return Counter(request.id for request in self.requests)


# The receiver listens on loopback: a private target, refused unless the operator allows them.
ALLOW_PRIVATE = {"GUARDSVC_WEBHOOK_ALLOW_PRIVATE_TARGETS": "true"}


@pytest.fixture()
def private_targets_allowed(app, monkeypatch):
    """The in-process app (the ``webhooks`` commands, delivery) allows private webhook targets."""
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOW_PRIVATE_TARGETS", True)


@pytest.fixture()
def receiver():
    server = Receiver().start()
    yield server
    server.stop()
