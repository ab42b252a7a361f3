"""Helpers for the fault tests: a TCP proxy that can cut or freeze a database, a Redis of our own.

The proxy sits between guardsvc and the test's PostgreSQL server. ``cut()``
closes every connection and refuses new ones (a database that is down);
``freeze()`` keeps every socket open but forwards nothing, and accepts new
connections without answering them (a database that hangs); ``restore()``
forwards again. Only the proxy's own sockets are touched: the server behind it
never notices.
"""
import os
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.live import free_port

UP, DOWN, FROZEN = "up", "down", "frozen"


class DatabaseProxy:
    """Forward 127.0.0.1:``port`` to ``target`` (host, port) in one thread per connection pair."""

    def __init__(self, target):
        self.target = target
        self.state = UP
        self._pairs = set()
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url_for(self, database_url):
        """``database_url`` with its host and port replaced by the proxy's."""
        parts = urlsplit(database_url)
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = (userinfo + "@" if userinfo else "") + f"127.0.0.1:{self.port}"
        return urlunsplit(parts._replace(netloc=netloc))

    def cut(self):
        self.state = DOWN
        self._close_pairs()

    def freeze(self):
        self.state = FROZEN

    def restore(self):
        self.state = UP

    def close(self):
        self.state = DOWN
        self._listener.close()
        self._close_pairs()

    def _close_pairs(self):
        with self._lock:
            pairs, self._pairs = self._pairs, set()
        for pair in pairs:
            for sock in pair:
                _close(sock)

    def _accept(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.state == DOWN:
                _close(client)
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            pair = (client, server)
            with self._lock:
                self._pairs.add(pair)
            threading.Thread(target=self._pump, args=(pair,), daemon=True).start()

    def _pump(self, pair):
        client, server = pair
        other = {client: server, server: client}
        try:
            while True:
                if self.state == FROZEN:
                    time.sleep(0.05)
                    continue
                readable, _, _ = select.select([client, server], [], [], 0.05)
                if self.state != UP:
                    continue
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    other[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            with self._lock:
                self._pairs.discard(pair)
            _close(client)
            _close(server)


def _close(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def postgres_target(database_url):
    parts = urlsplit(database_url)
    return parts.hostname or "127.0.0.1", parts.port or 5432


class RedisServer:
    """A throwaway ``redis-server`` on a free port, no persistence; it can be stopped, frozen, restarted."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [shutil.which("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def freeze(self):
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self):
        os.kill(self.process.pid, signal.SIGCONT)


@pytest.fixture()
def redis_server():
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer()
    yield server
    if server.process.poll() is None:
        server.thaw()
    server.stop()
