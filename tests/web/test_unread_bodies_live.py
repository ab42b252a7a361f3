"""A body that was not read whole ends its connection: clients trickling big bodies cannot hold the threads.

Replayed against gunicorn as shipped (no proxy in front): a declared
``Content-Length`` over 64 KiB is refused at once, and kept alive the server
would then read the rest of that body before anything else on the connection,
in a worker thread, for as long as its client trickles it. Twelve such clients
used to stop ``/healthz`` for everyone.
"""
import re
import select
import socket
import threading
import time

import pytest
import requests

from tests.support.live import LiveServer

pytestmark = [pytest.mark.live, pytest.mark.database_agnostic]

BODY_SECONDS = 1
BIG = 10_000_000
SUBMIT = "/api/guard/unblock-tickets/submit"


@pytest.fixture(scope="module")
def server(app):
    """One worker with four threads, as a small gunicorn reached directly."""
    server = LiveServer(workers=1, threads=4, env={"GUARDSVC_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS)})
    yield server
    server.stop()


def send_head(port, path=SUBMIT, length=BIG, method="POST", first=b""):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 f"Accept: application/json\r\nContent-Length: {length}\r\n\r\n".encode() + first)
    return sock


def answer_then_end(sock, seconds=5):
    """What the server sent, and whether the connection ended (EOF or reset) within ``seconds``."""
    data, deadline = b"", time.monotonic() + seconds
    while time.monotonic() < deadline:
        readable, _, _ = select.select([sock], [], [], max(deadline - time.monotonic(), 0))
        if not readable:
            break
        try:
            piece = sock.recv(65536)
        except ConnectionResetError:
            return data, True
        if not piece:
            return data, True
        data += piece
    return data, False


def head_of(answer):
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1")
    return head.split("\r\n")[0], {name.lower(): value for name, _, value in
                                   (line.partition(": ") for line in head.split("\r\n")[1:])}


def trickler(port, stop, answers):
    """A client declaring a big body and sending it a byte at a time, on a new connection whenever one ends."""
    sock = send_head(port)
    sock.setblocking(False)
    while not stop.is_set():
        try:
            piece = sock.recv(65536)
            if piece:
                answers.append(piece[:12])
            else:
                raise ConnectionResetError
        except BlockingIOError:
            pass
        except OSError:
            sock.close()
            sock = send_head(port)
            sock.setblocking(False)
            continue
        try:
            sock.send(b"x")
        except BlockingIOError:
            pass
        except OSError:
            pass  # the next recv says how it ended
        stop.wait(0.1)
    sock.close()


def test_trickling_clients_declaring_big_bodies_do_not_stop_the_service(server):
    stop, answers = threading.Event(), []
    clients = [threading.Thread(target=trickler, args=(server.port, stop, answers)) for _ in range(12)]
    for client in clients:
        client.start()
    waits = []
    try:
        time.sleep(0.5)
        for _ in range(6):
            started = time.monotonic()
            try:
                status = requests.get(server.url + "/healthz", timeout=3).status_code
            except requests.Timeout:
                status = None
            waits.append((status, round(time.monotonic() - started, 2)))
            time.sleep(0.3)
    finally:
        stop.set()
        for client in clients:
            client.join(10)
    assert all(status == 200 and wait < 2 for status, wait in waits), waits
    # Each trickler was answered (over and over, on new connections), never left waiting.
    assert len(answers) >= 12 and all(answer == b"HTTP/1.1 413" for answer in answers), answers[:5]


def test_a_declared_big_body_is_answered_413_and_the_connection_ends(server):
    sock = send_head(server.port, first=b"x" * 100)
    try:
        answer, ended = answer_then_end(sock)
    finally:
        sock.close()
    status, headers = head_of(answer)
    assert status.startswith("HTTP/1.1 413") and headers["connection"] == "close", answer[:300]
    assert ended, "the connection stayed open after the 413"
    # On any route, whether or not it reads a body: the body was not read, the connection ends.
    sock = send_head(server.port, path="/healthz", method="GET")
    try:
        answer, ended = answer_then_end(sock)
    finally:
        sock.close()
    assert head_of(answer)[0].startswith("HTTP/1.1 413") and ended, answer[:300]


def test_a_body_that_stops_coming_is_answered_408_and_the_connection_ends(server):
    sock = send_head(server.port, length=2000, first=b'{"name": "Budi"')
    try:
        answer, ended = answer_then_end(sock, seconds=BODY_SECONDS + 5)
    finally:
        sock.close()
    status, headers = head_of(answer)
    assert status.startswith("HTTP/1.1 408") and headers["connection"] == "close", answer[:300]
    assert ended


def test_a_chunked_body_over_the_limit_ends_its_connection(server):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    try:
        sock.sendall(f"POST {SUBMIT} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n".encode())
        piece = b"x" * 8192
        for _ in range(9):  # 72 KiB, and more would follow
            sock.sendall(b"2000\r\n" + piece + b"\r\n")
        answer, ended = answer_then_end(sock)
    finally:
        sock.close()
    status, headers = head_of(answer)
    assert status.startswith("HTTP/1.1 413") and headers["connection"] == "close", answer[:300]
    assert ended


def test_a_body_read_whole_keeps_the_connection_alive(server):
    session = requests.Session()
    first = session.post(server.url + SUBMIT, data=b"[]", headers={"Content-Type": "application/json"}, timeout=10)
    assert first.status_code in (400, 422) and first.headers["Connection"].lower() == "keep-alive"
    second = session.get(server.url + "/healthz", timeout=10)
    assert second.status_code == 200
    assert re.fullmatch(r"keep-alive", second.headers["Connection"], re.I)


def test_a_client_sending_a_big_body_at_speed_still_reads_the_413(server):
    """Reset rather than waited for, the connection still delivers the answer to a client that reads it."""
    for size in (70_000, 1_000_000, 10_000_000):
        answer = requests.post(server.url + SUBMIT, data=b"x" * size, headers={"Content-Type": "application/json"},
                               timeout=10)
        assert answer.status_code == 413 and answer.json()["success"] is False, (size, answer.text)
        assert answer.headers["Connection"] == "close"
