"""Real gunicorn server processes for tests that need real concurrency, shared by the session."""
import http.client
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/0"


# Below Linux's ephemeral range (32768-60999): a port given to a server here is never the
# source port the kernel picks for an outgoing connection (a database, a request, another
# test process's) in the moment between this check and the server's own bind.
_PORTS = range(20000, 32768)
_RANDOM = random.SystemRandom()  # unaffected by any test that seeds the random module


def free_port():
    """A port on 127.0.0.1 that nothing listens on or is bound to now."""
    for _ in range(100):
        port = _RANDOM.choice(_PORTS)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port found")


class LiveServer:
    """``gunicorn wsgi:app`` as the project starts it, in a process group of its own.

    It runs in the project directory, so gunicorn reads ``gunicorn.conf.py`` (worker
    class, threads, the redacting access log, the metrics folder, the start-up checks);
    the address and the sizes go through the settings operators use (GUARDSVC_BIND,
    GUARDSVC_WORKERS, GUARDSVC_THREADS), and each server counts its metrics in a folder
    of its own. One flag differs from production: the app is imported once and forked
    (``--preload``), so a start costs one import instead of one per worker; workers
    still are separate processes, each opening its own database connections after the fork.
    """

    def __init__(self, workers=4, env=None, port=None, threads=4, stdout=subprocess.DEVNULL, cwd=None, prefix=(),
                 stderr=None, unset=()):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # What a browser opens: a name, as the README says (passkeys never work at an IP address).
        self.browser_url = f"http://localhost:{self.port}"
        self.metrics_dir = tempfile.mkdtemp(prefix="guardsvc-live-metrics-")
        gunicorn = Path(sys.executable).with_name("gunicorn")
        # workers=None, threads=None: the project's defaults (one worker per core).
        settings = {"GUARDSVC_BIND": f"127.0.0.1:{self.port}", "PROMETHEUS_MULTIPROC_DIR": self.metrics_dir,
                    **({"GUARDSVC_WORKERS": str(workers)} if workers else {}),
                    **({"GUARDSVC_THREADS": str(threads)} if threads else {})}
        # ``prefix``: a command gunicorn runs under (``setpriv ...``); ``stderr``: where its log goes (a file).
        self.process = subprocess.Popen(
            [*prefix, str(gunicorn), "--log-level", "warning", "--preload", "wsgi:app"],
            # Access lines go to stdout: a test that reads them passes a file.
            # Another project folder (a copy, an earlier release) serves its own code the same way.
            cwd=cwd or ROOT, env=_without(unset, {**os.environ, **settings, **(env or {})}), start_new_session=True,
            stdout=stdout, stderr=stderr)
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
                time.sleep(0.05)
        raise RuntimeError("gunicorn did not start in time")

    def stop(self):
        # No test is about how gunicorn stops, and even its quick shutdown takes
        # about two seconds a server: end the whole process group at once.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


def _without(names, env):
    """``env`` less the variables ``names`` (settings a test wants at their defaults)."""
    return {name: value for name, value in env.items() if name not in names}


@pytest.fixture(scope="session")
def live_server(app):
    """A gunicorn with four workers on the test database (schema already migrated).

    As many hashing slots as a worker has threads: the concurrency tests here are about
    the throttles' counts, and the per-process hashing cap has tests of its own.
    """
    port = free_port()
    server = LiveServer(port=port, env={"GUARDSVC_HASH_CONCURRENCY": "4",
                                        "GUARDSVC_BASE_URL": f"http://localhost:{port}"})
    yield server
    server.stop()


@pytest.fixture(scope="session")
def limited_server(app):
    """A gunicorn with rate limits on, counted in Redis so that its three workers share them.

    The key prefix is this server's own, so no other run's counts leak in. Its tests
    stay apart by what the limits count: status checks from this machine (one test
    only), wrong codes from a source address of the test's own.
    """
    server = LiveServer(workers=3, env={
        "GUARDSVC_RATELIMIT_ENABLED": "true",
        "GUARDSVC_RATELIMIT_STORAGE_URI": REDIS_URL,
        "GUARDSVC_RATELIMIT_KEY_PREFIX": f"guardsvc-test-{secrets.token_hex(6)}",
        "GUARDSVC_RATELIMIT_CHECK": "5 per minute",
        "GUARDSVC_RATELIMIT_CODE": "3 per minute",
        "GUARDSVC_RATELIMIT_AUTH": "100 per minute",
    })
    yield server
    server.stop()


def all_at_once(count, call):
    """Run ``call(i)`` in ``count`` threads released together; return the results in order."""
    barrier = threading.Barrier(count)
    results = [None] * count

    def run(i):
        barrier.wait()
        results[i] = call(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def wait_for(condition, what, timeout=15):
    """``condition()``'s first truthy answer, polled until ``timeout`` seconds; else an AssertionError naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(f"not seen within {timeout}s: {what}")


def wait_for_port(port, process, what):
    """Wait until ``process`` (a child of the test) accepts connections on ``port``."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not start in time")
