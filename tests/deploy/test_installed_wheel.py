"""guardsvc as an operator installs it: a wheel built from a clean copy of the project, in a fresh
virtual environment, run from a folder outside the source tree.

The folder holds only the one-line ``gunicorn.conf.py`` the docs give
(``from guardsvc.gunicorn_conf import *``); the database is the installed
package's default (SQLite in its instance folder), migrated by ``flask db
upgrade`` from that folder; the server is ``gunicorn wsgi:app`` with no flags,
with settings in the environment as an operator would set them. Nothing of the
checkout is on the path.
"""
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from tests.support.live import ROOT, all_at_once, free_port, wait_for

pytestmark = [pytest.mark.live, pytest.mark.one_database]

METRICS_TOKEN = "token-metrik-yang-panjang-123"
FLOOD_ADDRESSES = 40


def _clean_copy(target):
    """The files a fresh clone would have, with uncommitted work: nothing git ignores (no .mo, no .venv)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(bin folder of a fresh venv holding the wheel, a deployment folder outside the source tree)."""
    root = tmp_path_factory.mktemp("installed")
    source, dist, venv, site = root / "source", root / "dist", root / "venv", root / "site"
    for folder in (source, dist, site):
        folder.mkdir()
    _clean_copy(source)
    assert not list(source.rglob("*.mo"))  # the build has to make them
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-qq", "--no-deps", "-w", str(dist), str(source)],
                   check=True, timeout=600)
    wheel = next(dist.glob("guardsvc-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin/pip"), "install", "-qq", "--disable-pip-version-check", str(wheel)],
                   check=True, timeout=900)
    (site / "gunicorn.conf.py").write_text("from guardsvc.gunicorn_conf import *  # noqa\n")
    return venv / "bin", site


def _environment(**settings):
    """The machine's environment without the test suite's settings, plus ``settings``."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("GUARDSVC_", "PROMETHEUS_")) and name not in ("PYTHONPATH", "FLASK_APP")}
    return {**env, **settings}


def _run(installed, *argv, env=None, timeout=180):
    bin_folder, site = installed
    return subprocess.run([str(bin_folder / argv[0]), *argv[1:]], cwd=site, env=env or _environment(),
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def server(installed):
    """``gunicorn wsgi:app``, no flags, in the deployment folder: a worker per core, and no limit store
    set: the limits are counted in the instance folder's file that every worker shares."""
    bin_folder, site = installed
    migrated = _run(installed, "flask", "--app", "guardsvc", "db", "upgrade")
    assert migrated.returncode == 0, migrated.stderr
    port = free_port()
    env = _environment(GUARDSVC_BIND=f"127.0.0.1:{port}", GUARDSVC_LOG_FORMAT="json",
                       GUARDSVC_METRICS_TOKEN=METRICS_TOKEN, GUARDSVC_PROXY_COUNT="1",
                       GUARDSVC_RATELIMIT_AUTH="5 per minute")
    access, errors = (site / "access.log").open("w"), (site / "error.log").open("w")
    process = subprocess.Popen([str(bin_folder / "gunicorn"), "wsgi:app"], cwd=site, env=env, stdout=access,
                               stderr=errors, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: process.poll() is not None or _answers(url), "the installed server to answer", timeout=120)
        assert process.poll() is None, (site / "error.log").read_text()
        yield url, site, process
    finally:
        process.terminate()
        process.wait(30)
        access.close()
        errors.close()


def _answers(url):
    try:
        return requests.get(url + "/healthz", timeout=2).ok
    except requests.RequestException:
        return False


def test_the_wheel_carries_what_the_service_needs(installed):
    found = _run(installed, "python", "-c", "import guardsvc, os; print(os.path.dirname(guardsvc.__file__))")
    package = Path(found.stdout.strip())
    assert str(ROOT) not in str(package)
    for needed in ("templates/base.html", "static/css/site.css", "migrations/env.py",
                   "translations/en/LC_MESSAGES/messages.mo"):
        assert (package / needed).is_file(), needed


def test_the_installed_database_is_where_the_docs_say_and_migrated(server, installed):
    url, _, _ = server
    bin_folder, _ = installed
    database = bin_folder.parent / "var/guardsvc-instance/guardsvc.db"
    assert database.is_file() and database.stat().st_mode & 0o077 == 0
    assert requests.get(url + "/readyz", timeout=10).json() == {"success": True, "status": "ready"}


def test_an_english_browser_reads_english(server):
    url, _, _ = server
    page = requests.get(url + "/", headers={"Accept-Language": "en-GB,en;q=0.9"}, timeout=10)
    assert page.status_code == 200 and '<html lang="en"' in page.text
    assert "Appeal a block" in page.text and "Ajukan banding" not in page.text


def _access_lines(site):
    return [json.loads(line) for line in (site / "access.log").read_text().splitlines() if line.startswith("{")]


def test_access_lines_are_json_with_the_request_id_and_no_one_time_link(server):
    url, site, _ = server
    secret = secrets.token_urlsafe(32)
    request_id = f"uji-{secrets.token_hex(8)}"
    requests.get(f"{url}/masuk/atur-ulang/{secret}", headers={"X-Request-Id": request_id}, timeout=10)
    line = wait_for(lambda: next((line for line in _access_lines(site) if line.get("request_id") == request_id),
                                 None), "the access line of the reset link")
    assert line["logger"] == "gunicorn.access" and line["path"].startswith("/masuk/atur-ulang/")
    assert secret not in (site / "access.log").read_text()


def _metric(text, name):
    return sum(float(value) for value in re.findall(rf"^{re.escape(name)} (\S+)$", text, re.M))


def test_metrics_add_up_over_both_workers(server):
    url, site, process = server
    before = requests.get(url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text
    series = 'guardsvc_http_request_duration_seconds_count{endpoint="appeals_api.check",method="GET"}'
    folder = site.parent / "venv/var/guardsvc-instance/metrics"

    def workers_counted():  # a worker writes its own files (their names end in its pid) once it counts
        return {path.stem.rpartition("_")[2] for path in folder.glob("counter_*.db")} - {str(process.pid)}

    sent = 0
    # Which worker takes a connection is the kernel's choice: rounds of 24 at once until both have
    # answered some (nearly always the first round).
    for _ in range(10):
        answers = all_at_once(24, lambda n: requests.get(f"{url}/api/guard/unblock-tickets/check/TKT-0000000{n % 10}",
                                                         headers={"X-Forwarded-For": f"198.51.100.{n}"},
                                                         timeout=30).status_code)
        assert answers == [404] * 24
        sent += 24
        if len(workers_counted()) == 2:
            break
    assert len(workers_counted()) == 2  # both workers wrote counts, in the instance folder's metrics/
    after = requests.get(url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text
    assert _metric(after, series) - _metric(before, series) == sent  # and a scrape adds up both


def test_per_address_limits_are_exact_over_both_workers(server, installed):
    url, _, _ = server
    bin_folder, _ = installed
    assert (bin_folder.parent / "var/guardsvc-instance/ratelimits.lmdb").is_file()  # the default store
    answers = all_at_once(12, lambda n: requests.post(
        url + "/api/auth/tokens", json={"email": f"orang{n}@example.com", "password": "salah-sekali-123"},
        headers={"X-Forwarded-For": "192.0.2.77"}, timeout=60).status_code)
    assert answers.count(429) == 7, answers  # the limit is 5 a minute, whichever worker answers
    assert set(answers) - {429} <= {401, 503}  # 503: the hashing cap answered at once


def test_the_status_page_stays_fast_during_a_password_flood(server):
    """40 addresses guess passwords (production hashing); the status page hashes nothing.

    Measured against the flood itself, at the same moment on the same machine: with threads and
    the hashing cap, a status page is answered beside the hashes (its p90 well under the time a
    guess takes to be hashed), beyond-cap guesses get 503 at once. A sync worker, gunicorn's default,
    would queue each status page behind at least one whole hash. The absolute figure (p90 under
    1 s on a quiet machine) is bench/hash_flood.py's to print.
    """
    url, _, _ = server
    stop = threading.Event()
    guesses = []  # (status, seconds) of each guess

    def flood(n):
        session = requests.Session()
        while not stop.is_set():
            started = time.monotonic()
            answer = session.post(url + "/api/auth/tokens", json={"email": f"korban{n}@example.com",
                                                                  "password": "tebakan-salah-1"},
                                  headers={"X-Forwarded-For": f"203.0.113.{n + 1}"}, timeout=60)
            guesses.append((answer.status_code, time.monotonic() - started, answer.headers.get("Retry-After")))
            stop.wait(0.05)

    threads = [threading.Thread(target=flood, args=(n,)) for n in range(FLOOD_ADDRESSES)]
    for thread in threads:
        thread.start()
    timings = []
    try:
        time.sleep(1)
        for _ in range(30):
            started = time.monotonic()
            page = requests.get(url + "/banding/cek?tiket=TKT-00000000", timeout=30)
            timings.append(time.monotonic() - started)
            assert page.status_code == 404
            time.sleep(0.1)
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    hashed = [seconds for status, seconds, _ in guesses if status == 401]
    assert hashed and any(status == 503 and retry for status, _, retry in guesses)  # the cap answered at once
    p90 = statistics.quantiles(timings, n=10)[-1]
    assert p90 < statistics.median(hashed), (sorted(timings), statistics.median(hashed))


def test_memory_rate_limits_with_several_workers_are_refused_however_asked(installed):
    for argv, env in ((["gunicorn", "-w", "2", "wsgi:app"], {}), (["gunicorn", "wsgi:app"], {"GUARDSVC_WORKERS": "2"}),
                      (["gunicorn", "wsgi:app"], {"WEB_CONCURRENCY": "3"})):
        refused = _run(installed, *argv, env=_environment(GUARDSVC_BIND=f"127.0.0.1:{free_port()}",
                                                          GUARDSVC_RATELIMIT_STORAGE_URI="memory://", **env))
        assert refused.returncode != 0 and "memory://" in refused.stderr and "redis://" in refused.stderr, argv


def test_the_default_shape_starts_without_a_limit_store_setting_however_many_workers(installed):
    port = free_port()
    env = _environment(GUARDSVC_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="3")
    bin_folder, site = installed
    process = subprocess.Popen([str(bin_folder / "gunicorn"), "wsgi:app"], cwd=site, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: process.poll() is not None or _answers(f"http://127.0.0.1:{port}"), "three workers", 120)
        assert process.poll() is None
    finally:
        process.terminate()
        process.wait(30)


def test_gunicorn_without_the_configuration_refuses_and_names_it(installed, tmp_path):
    bin_folder, _ = installed
    refused = subprocess.run([str(bin_folder / "gunicorn"), "-b", f"127.0.0.1:{free_port()}", "wsgi:app"],
                             cwd=tmp_path, env=_environment(), capture_output=True, text=True, timeout=180)
    assert refused.returncode != 0
    assert "python:guardsvc.gunicorn_conf" in refused.stderr and "Worker failed to boot" in refused.stderr
