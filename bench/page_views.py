"""A visitor's page views on a phone's link: static files by fingerprinted URL vs by plain URL.

One run, side by side, one gunicorn as `make run` serves it and Debian's headless Chromium on an
emulated mobile link (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up). A fresh browser profile
opens the same pages in turn (the landing page, the appeal form, the status check, sign-in, the
appeal form again), from a server as shipped (CSS and scripts named by their content hash: kept
for a year) and from one whose pages link them by their plain URL (which the browser must
revalidate on every view; the way they were linked before). Prints, per page view after the first,
the requests that reached the server and the time to the load event; then the totals.

    .venv/bin/python bench/page_views.py [--rounds 3]
"""
import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent

from bench.hotpaths import flask, guardsvc_env  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.live import free_port, wait_for_port  # noqa: E402

PAGES = ("/", "/banding", "/banding/cek", "/masuk", "/banding")
# Chromium's "Fast 3G" preset: what a phone on a mobile network often gets.
LINK = {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh browser profiles per way of serving")
    return parser.parse_args()


def plain_app():
    """guardsvc with its static links left as plain URLs (gunicorn 'bench.page_views:plain_app()')."""
    from guardsvc import create_app
    from guardsvc.web.static_files import _add_fingerprint

    app = create_app()
    app.url_default_functions[None].remove(_add_fingerprint)
    return app


def visit(browser, url):
    """One fresh profile through PAGES: ``[(server requests, ms to load)]`` per page view."""
    context = browser.new_context(base_url=url, viewport={"width": 375, "height": 800}, locale="id-ID")
    page = context.new_page()
    devtools = context.new_cdp_session(page)
    devtools.send("Network.enable")
    devtools.send("Network.emulateNetworkConditions", LINK)
    static, cached = {}, set()
    devtools.on("Network.requestWillBeSent", lambda event: static.update(
        {event["requestId"]: event["request"]["url"]} if "/static/" in event["request"]["url"] else {}))
    devtools.on("Network.requestServedFromCache", lambda event: cached.add(event["requestId"]))
    devtools.on("Network.responseReceived", lambda event: cached.add(event["requestId"])
                if event["response"].get("fromDiskCache") else None)
    views = []
    for path in PAGES:
        static.clear()
        cached.clear()
        started = time.perf_counter()
        page.goto(path, wait_until="load")
        took = (time.perf_counter() - started) * 1000
        views.append((1 + len(set(static) - cached), took))  # the page itself, and what was not kept
    context.close()
    return views


def main():
    args = parse_args()
    folder = Path(tempfile.mkdtemp(prefix="guardsvc-page-views-"))
    env = guardsvc_env(f"sqlite:///{folder}/guardsvc.db", folder, {"GUARDSVC_PROXY_COUNT": "0"})
    flask(env, "db", "upgrade")
    servers = {}
    results = {"fingerprinted": [], "plain URL": []}
    try:
        for name, application in zip(results, ("wsgi:app", "bench.page_views:plain_app()")):
            port = free_port()
            servers[name] = (port, subprocess.Popen(
                [str(BIN / "gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers", "1", "--worker-class",
                 "gthread", "--threads", "8", "--log-level", "warning", application], cwd=ROOT, env=env))
            wait_for_port(port, servers[name][1], name)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(args.rounds):
                for name, (port, _) in servers.items():
                    results[name].append(visit(browser, f"http://localhost:{port}"))
            browser.close()
    finally:
        for _, server in servers.values():
            server.terminate()
            server.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{len(PAGES)} page views per fresh profile, {args.rounds} profiles each, 375 px, emulated mobile link "
          f"({LINK['latency']} ms, 1.6 Mbit/s down); the first view fetches everything either way")
    print(f"{'':16}" + "".join(f"{path:>14}" for path in PAGES[1:]) + f"{'total':>14}")
    medians = {}
    for name, runs in results.items():
        requests = [sum(run[i][0] for run in runs) / len(runs) for i in range(1, len(PAGES))]
        millis = [statistics.median(run[i][1] for run in runs) for i in range(1, len(PAGES))]
        medians[name] = (sum(requests), sum(millis))
        print(f"{name:16}" + "".join(f"{n:>5.0f} req {ms:>4.0f}ms" for n, ms in zip(requests, millis))
              + f"{sum(requests):>5.0f} req {sum(millis):>5.0f}ms")
    (fast_requests, fast_ms), (slow_requests, slow_ms) = medians["fingerprinted"], medians["plain URL"]
    print(f"ratio fingerprinted / plain URL: requests {fast_requests / slow_requests:.2f}, "
          f"time to load {fast_ms / slow_ms:.2f}")


if __name__ == "__main__":
    main()
