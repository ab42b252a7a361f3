"""The README's first command, ``make run``, as a newcomer runs it: on an instance folder nothing has
made yet, it migrates, starts the worker and gunicorn with the project's configuration, says where the
service answers, serves, and stops whole on Ctrl-C."""
import os
import signal
import subprocess
import time
import urllib.request

import pytest

from tests.live import ROOT, free_port

pytestmark = [pytest.mark.live, pytest.mark.one_database]


def _answer(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


def test_make_run_serves_a_fresh_instance_and_stops_whole(tmp_path):
    port = free_port()
    # A newcomer's environment: none of the suite's settings, only where this run may write.
    env = {name: value for name, value in os.environ.items() if not name.startswith("GUARDSVC_")}
    env.update(GUARDSVC_BIND=f"127.0.0.1:{port}", GUARDSVC_INSTANCE_PATH=str(tmp_path / "instance"),
               PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "instance" / "metrics"))
    process = subprocess.Popen(["make", "run"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    said = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            said.append(line)
            if line.startswith("guardsvc siap di"):
                break
        assert said and said[-1].strip() == f"guardsvc siap di http://localhost:{port}", "".join(said[-40:])
        assert _answer(f"http://127.0.0.1:{port}/readyz")[0] == 200
        status, page = _answer(f"http://127.0.0.1:{port}/banding")
        assert status == 200 and '<html lang="id">' in page
        assert (tmp_path / "instance" / "guardsvc.db").exists()
    finally:
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    time.sleep(1)
    left = subprocess.run(["pgrep", "-s", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert left == [], "make run left processes behind"
