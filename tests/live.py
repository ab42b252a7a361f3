"""A real gunicorn server process for tests that need real concurrency."""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    def __init__(self, workers=4, env=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.process = subprocess.Popen(
            [str(gunicorn), "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--worker-class", "gthread", "--threads", "4", "--log-level", "warning", "wsgi:app"],
            cwd=ROOT, env={**os.environ, **(env or {})})
        self._wait()

    def _wait(self):
        # Generous: a busy machine may take a while to boot four workers.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}")
            try:
                if requests.get(self.url + "/healthz", timeout=5).ok:
                    return
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError("gunicorn did not start in time")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="session")
def live_server(app):
    """A gunicorn with four workers on the test database (schema already migrated)."""
    server = LiveServer()
    yield server
    server.stop()
