"""A flood of wrong passwords from many addresses: what it costs pages that hash nothing.

Serves guardsvc as ``make run`` does (gunicorn, 1 gthread worker x 8 threads,
production Argon2 costs, rate limits on with their defaults), behind a declared
proxy so that 40+ client addresses can be simulated from loopback. Prints, side
by side in one run, the latency of the public status page ``/banding/cek`` and
of the owner's sign-in (a browser the account knows) with and without the flood,
and what the flood's requests were answered. Asserts nothing.

Run: .venv/bin/python bench/hash_flood.py [--addresses 40] [--seconds 20]
"""
import argparse
import collections
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "kata-sandi-pemilik-123"


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def serve(env, port):
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen([str(gunicorn), "--bind", f"127.0.0.1:{port}", "--workers", "1",
                                "--worker-class", "gthread", "--threads", "8", "--log-level", "warning",
                                "--no-control-socket", "wsgi:app"], cwd=ROOT, env=env, start_new_session=True)
    for _ in range(300):
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).ok:
                return process
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError("gunicorn did not start")


def owner_browser(url):
    """A browser that signed in once (so the account knows its device cookie), then signed out."""
    browser = requests.Session()
    sign_in(browser, url)
    return browser


def sign_in(browser, url):
    page = browser.get(url + "/masuk", timeout=30, headers={"X-Forwarded-For": "192.0.2.250"}).text
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    started = time.perf_counter()
    answer = browser.post(url + "/masuk", data={"csrf_token": token, "email": "pemilik@example.com",
                                                "password": PASSWORD},
                          headers={"X-Forwarded-For": "192.0.2.250"}, allow_redirects=False, timeout=60)
    elapsed = time.perf_counter() - started
    browser.cookies.pop("guardsvc_session", None)
    return elapsed, answer.status_code


def measure(url, browser, seconds):
    """Status-page latencies (s) for ``seconds``, and the owner's sign-in times, one after another."""
    pages, sign_ins = [], []
    stop_at = time.monotonic() + seconds
    while time.monotonic() < stop_at:
        started = time.perf_counter()
        requests.get(url + "/banding/cek?tiket=TKT-00000000", timeout=60,
                     headers={"X-Forwarded-For": f"198.18.{len(pages) % 250}.{len(pages) // 250 % 250}"})
        pages.append(time.perf_counter() - started)
        if len(pages) % 80 == 0:  # now and then: a person signs in rarely, and the per-address limit counts
            sign_ins.append(sign_in(browser, url))
        time.sleep(0.05)
    return pages, sign_ins


def flood(url, addresses, stop, answers):
    def guess(number):
        session = requests.Session()
        while not stop.is_set():
            try:
                answer = session.post(url + "/api/auth/tokens", timeout=60,
                                      json={"email": f"korban{number % 5}@example.com", "password": "salah-tebak-1"},
                                      headers={"X-Forwarded-For": f"203.0.{number // 250}.{number % 250 + 1}"})
                answers[answer.status_code] += 1
            except requests.RequestException:
                answers["error"] += 1

    threads = [threading.Thread(target=guess, args=(n,), daemon=True) for n in range(addresses)]
    for thread in threads:
        thread.start()
    return threads


def report(label, pages, sign_ins):
    times = [elapsed for elapsed, _ in sign_ins]
    print(f"{label:<14} status page p50 {statistics.median(pages) * 1000:7.0f} ms  "
          f"p90 {percentile(pages, 0.9) * 1000:7.0f} ms  ({len(pages)} requests)   "
          f"owner's sign-in median {statistics.median(times) * 1000 if times else float('nan'):7.0f} ms, "
          f"answers {sorted(collections.Counter(status for _, status in sign_ins).items())}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=40)
    parser.add_argument("--seconds", type=int, default=20)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="guardsvc-flood-"))
    env = {**os.environ, "GUARDSVC_DATABASE_URL": f"sqlite:///{tmp / 'flood.db'}", "GUARDSVC_SECRET_KEY": "bench",
           "GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_LOG_LEVEL": "ERROR", "FLASK_APP": "guardsvc"}
    env.pop("GUARDSVC_TESTING_CHEAP_PASSWORD_HASHES", None)
    flask = Path(sys.executable).with_name("flask")
    subprocess.run([str(flask), "db", "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    for email in ["pemilik@example.com"] + [f"korban{n}@example.com" for n in range(5)]:
        subprocess.run([str(flask), "users", "create", email, "--name", "Bench", "--password", PASSWORD],
                       cwd=ROOT, env=env, check=True, capture_output=True)
    port = 18000 + os.getpid() % 1000
    server = serve(env, port)
    url = f"http://127.0.0.1:{port}"
    try:
        browser = owner_browser(url)
        report("quiet", *measure(url, browser, args.seconds / 2))
        stop, answers = threading.Event(), collections.Counter()
        threads = flood(url, args.addresses, stop, answers)
        time.sleep(1)
        report(f"flood ({args.addresses} IPs)", *measure(url, browser, args.seconds))
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        print(f"flood answers: {dict(sorted(answers.items(), key=str))}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
