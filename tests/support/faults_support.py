"""Helpers for the fault tests: a TCP proxy that can cut or freeze a database; a PostgreSQL and a Redis of our own.

The proxy sits between guardsvc and the test's PostgreSQL server. ``cut()``
closes every connection and refuses new ones (a database that is down);
``freeze()`` keeps every socket open but forwards nothing, and accepts new
connections without answering them (a database that hangs); ``restore()``
forwards again. Only the proxy's own sockets are touched: the server behind it
never notices.

``PostgresServer`` is a throwaway PostgreSQL cluster that the test may freeze
as an operator's server freezes (SIGSTOP to every one of its processes), never
the machine's shared server on 5432.
"""
import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.support.live import free_port

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


class PostgresServer:
    """A PostgreSQL cluster of the test's own on a free port, without durability (fsync off).

    ``url`` names its database ``guardsvc`` (empty). ``freeze()`` stops the postmaster and
    every backend with SIGSTOP: connections are still accepted by the kernel and then never
    answered, as with a server that hangs; ``thaw()`` lets them all go on. PostgreSQL refuses to run as root: then it runs
    as the ``postgres`` user.
    """

    def __init__(self):
        bindir = Path(subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                     check=True).stdout.strip())
        self.dir = Path(tempfile.mkdtemp(prefix="guardsvc-pg-"))
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/guardsvc"
        user = {}
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            user = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
        data = self.dir / "data"
        subprocess.run([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                        "--no-sync", "--no-instructions"], capture_output=True, check=True, **user)
        self.log = open(self.dir / "postgres.log", "wb")
        self.process = subprocess.Popen(
            [str(bindir / "postgres"), "-D", str(data), "-p", str(self.port), "-k", str(self.dir),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, **user)
        self._wait()

    def _wait(self):
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                                     connect_timeout=2, autocommit=True) as connection:
                    connection.execute("CREATE DATABASE guardsvc")
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"postgres did not start: {(self.dir / 'postgres.log').read_text()[-2000:]}")
                time.sleep(0.1)

    def freeze(self):
        # Each backend is a process group of its own (PostgreSQL's children call setsid): the
        # postmaster first, so that it forks no new one meanwhile, then every child.
        os.kill(self.process.pid, signal.SIGSTOP)
        for pid in self._children():
            _signal(pid, signal.SIGSTOP)

    def thaw(self):
        for pid in self._children():
            _signal(pid, signal.SIGCONT)
        os.kill(self.process.pid, signal.SIGCONT)

    def _children(self):
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in path.read_text().split()]

    def stop(self):
        if self.process.poll() is None:
            self.thaw()
            self.process.send_signal(signal.SIGQUIT)  # immediate shutdown: no checkpoint to wait for
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _signal(pid, signum):
    try:
        os.kill(pid, signum)
    except ProcessLookupError:  # a backend that ended meanwhile
        pass


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
