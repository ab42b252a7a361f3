"""The README's first command, ``make run``, as a newcomer runs it: on an instance folder nothing has
made yet, it migrates, starts the worker and gunicorn with the project's configuration, says where the
service answers, serves, and stops whole on Ctrl-C."""
import os
import queue
import signal
import subprocess
import threading
import time
import urllib.request

import pytest

from tests.support.live import ROOT, free_port

pytestmark = [pytest.mark.live, pytest.mark.one_database]


def _answer(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


def _session_processes(session):
    found = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-s", str(session)], capture_output=True, text=True)
    return found.stdout.strip()


def test_make_run_serves_a_fresh_instance_and_stops_whole(tmp_path):
    port = free_port()
    # A newcomer's environment: none of the suite's settings, only where this run may write.
    env = {name: value for name, value in os.environ.items() if not name.startswith("GUARDSVC_")}
    env.update(GUARDSVC_BIND=f"127.0.0.1:{port}", GUARDSVC_INSTANCE_PATH=str(tmp_path / "instance"),
               PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "instance" / "metrics"))
    # As from a terminal: Ctrl-C's signal at its default (a suite started in the background, as CI
    # does, inherits it ignored, and make and bash would keep ignoring it).
    process = subprocess.Popen(["make", "run"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = queue.Queue()  # read all along: a full pipe would stop the service from logging, and exiting
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    said = []
    try:
        deadline = time.monotonic() + 240
        while not (said and said[-1].startswith("guardsvc siap di")) and time.monotonic() < deadline:
            try:
                said.append(lines.get(timeout=1))
            except queue.Empty:
                if process.poll() is not None:
                    break
        assert said and said[-1].strip() == f"guardsvc siap di http://localhost:{port}", "".join(said[-40:])
        assert _answer(f"http://127.0.0.1:{port}/readyz")[0] == 200
        status, page = _answer(f"http://127.0.0.1:{port}/banding")
        assert status == 200 and '<html lang="id">' in page
        assert (tmp_path / "instance" / "guardsvc.db").exists()
    finally:
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            left = _session_processes(process.pid)
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail(f"make run still running 60 s after Ctrl-C:\n{left}")
    time.sleep(1)
    assert _session_processes(process.pid) == "", "make run left processes behind"
