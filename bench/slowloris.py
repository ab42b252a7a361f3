"""Slow clients: 50 connections that send their headers a byte at a time, and what others get meanwhile.

One run, side by side: guardsvc served as `make run` serves it (gunicorn, 1
worker x 8 threads) reached directly, and the same server behind the shipped
nginx files (which read a whole request before passing it on). For each, 50
slowloris connections are opened and kept trickling, then an ordinary client
asks for `/healthz` and `/banding` in a loop; the table shows how many of its
requests were answered and how long the slowest took.

    .venv/bin/python bench/slowloris.py [--slow 50] [--seconds 10]
"""
import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent

from bench.hotpaths import flask, guardsvc_env  # noqa: E402
from tests.support.live import free_port, wait_for_port  # noqa: E402
from tests.support.nginx_support import NGINX, missing, nginx_conf  # noqa: E402

SECRET = "bench-slowloris-secret-0123456789abcdef"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--slow", type=int, default=50, help="slow connections")
    parser.add_argument("--seconds", type=float, default=10, help="how long the ordinary client asks")
    return parser.parse_args()


def trickle(port, stop, opened):
    """One slow client: a request line, then a header byte every second, never finished."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /banding HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            opened.append(1)
            while not stop.is_set():
                sock.sendall(b"X")
                stop.wait(1)
    except OSError:
        pass


def ordinary(url, seconds):
    """(answered, failed, slowest seconds) of a client asking in a loop."""
    answered = failed = 0
    slowest = 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for path in ("/healthz", "/banding"):
            started = time.monotonic()
            try:
                ok = requests.get(url + path, timeout=30).status_code == 200
            except requests.RequestException:
                ok = False
            slowest = max(slowest, time.monotonic() - started)
            answered, failed = answered + ok, failed + (not ok)
    return answered, failed, slowest


def measure(url, port, args):
    stop, opened = threading.Event(), []
    slow = [threading.Thread(target=trickle, args=(port, stop, opened), daemon=True) for _ in range(args.slow)]
    for thread in slow:
        thread.start()
    time.sleep(2)
    try:
        return (len(opened), *ordinary(url, args.seconds))
    finally:
        stop.set()


def main():
    args = parse_args()
    if missing():
        raise SystemExit(missing())
    folder = Path(tempfile.mkdtemp(prefix="guardsvc-slowloris-"))
    env = guardsvc_env(f"sqlite:///{folder}/guardsvc.db", folder,
                       {"GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_FORWARD_AUTH_SECRET": SECRET})
    flask(env, "db", "upgrade")
    guardsvc_port, nginx_port = free_port(), free_port()
    processes = []
    try:
        # make run's shape: one worker, eight threads (scripts/run).
        processes.append(subprocess.Popen(
            [str(BIN / "gunicorn"), "--bind", f"127.0.0.1:{guardsvc_port}", "--workers", "1",
             "--worker-class", "gthread", "--threads", "8", "--log-level", "warning", "wsgi:app"], cwd=ROOT, env=env))
        wait_for_port(guardsvc_port, processes[-1], "guardsvc")
        (folder / "nginx.conf").write_text(nginx_conf(folder, port=nginx_port, guardsvc=f"127.0.0.1:{guardsvc_port}",
                                                      app=f"127.0.0.1:{guardsvc_port}", secret=SECRET, workers=1))
        processes.append(subprocess.Popen([str(NGINX), "-p", str(folder), "-c", str(folder / "nginx.conf")]))
        wait_for_port(nginx_port, processes[-1], "nginx")
        rows = [("gunicorn directly", measure(f"http://127.0.0.1:{guardsvc_port}", guardsvc_port, args)),
                ("behind the shipped nginx", measure(f"http://127.0.0.1:{nginx_port}/guardsvc", nginx_port, args))]
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{args.slow} slowloris connections (a header byte a second), an ordinary client for {args.seconds:.0f} s")
    print(f"{'':26} {'slow open':>9} {'answered':>9} {'failed':>7} {'slowest s':>10}")
    for name, (opened, answered, failed, slowest) in rows:
        print(f"{name:26} {opened:9} {answered:9} {failed:7} {slowest:10.2f}")


if __name__ == "__main__":
    main()
