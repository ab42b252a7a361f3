"""What guarding a site costs it: the same site through nginx, unguarded and behind the shipped files.

One nginx (2 workers) serves two ports in one run: one proxies straight to the
site, the other is deploy/nginx/guardsvc.conf (with guardsvc-http.conf and
the Lua module) in front of the same site. The site is a minimal Flask app under
gunicorn -w 2; guardsvc runs beside it with a few hundred blocks that hit none
of the visitors. wrk (2 threads x 16 connections) plays 1,000 returning
visitors, each with its own address (nginx's realip module reads it from a
header only this benchmark sends) and its own device cookie; the contenders
alternate, and the medians are compared.

Then, while the guarded site is under that load, new blocks on visitors' devices
and addresses are timed until nginx refuses them, and their lifts until it lets
them through again.

    .venv/bin/python bench/edge_cost.py [--duration 5] [--rounds 2] [--probes 5]
"""
import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent

from bench.hotpaths import flask, guardsvc_env  # noqa: E402
from tests.support.live import free_port, wait_for_port  # noqa: E402
from tests.support.nginx_support import NGINX, missing, nginx_conf  # noqa: E402

SECRET = "bench-edge-secret-0123456789abcdefghijk"
VISITOR_HEADER = "X-Bench-Visitor"
SITE = """
from flask import Flask
app = Flask(__name__)
PAGE = "<!doctype html><title>Toko</title><h1>Selamat datang</h1>" + "<p>Produk</p>" * 40

@app.get("/")
@app.get("/<path:anything>")
def page(anything=""):
    return PAGE
"""
WRK_SCRIPT = """
local visitors = {%(visitors)s}
math.randomseed(%(seed)d)
request = function()
  local visitor = visitors[math.random(#visitors)]
  return wrk.format("GET", "/produk/" .. math.random(1000), {
    ["%(header)s"] = visitor[1], ["Cookie"] = "guardsvc_device=" .. visitor[2]})
end
"""
UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=2, help="runs per contender, alternating")
    parser.add_argument("--visitors", type=int, default=1000)
    parser.add_argument("--blocks", type=int, default=300, help="blocks on other clients, listed at the edge")
    parser.add_argument("--probes", type=int, default=5, help="new blocks timed until enforced")
    return parser.parse_args()


def gunicorn(target, port, env, cwd=ROOT, workers=2, extra=()):
    return subprocess.Popen([str(BIN / "gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
                             "--log-level", "warning", *extra, target], cwd=cwd, env=env)


def visitors(count, rng):
    return [(f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}", str(uuid.uuid4()))
            for _ in range(count)]


def wrk(url, script, args):
    output = subprocess.run(["wrk", "-t", "2", "-c", "16", "-d", f"{args.duration}s", "--latency", "-s",
                             str(script), url], capture_output=True, text=True, check=True).stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
              "bad": int((re.search(r"Non-2xx or 3xx responses: (\d+)", output) or [0, 0])[1])}
    match = re.search(r"\s99%\s+([\d.]+)(us|ms|s)\b", output)
    result["p99"] = float(match.group(1)) * UNITS[match.group(2)]
    return result


class Stack:
    """The site, guardsvc (gunicorn) and nginx; ``database``: guardsvc's (default: a new SQLite file)."""

    def __init__(self, folder, args, database=None, app=None):
        self.folder, self.processes = folder, []
        database = database or f"sqlite:///{folder}/guardsvc.db"
        self.env = guardsvc_env(database, folder, {"GUARDSVC_PROXY_COUNT": "1",
                                                   "GUARDSVC_FORWARD_AUTH_SECRET": SECRET})
        flask(self.env, "db", "upgrade")
        os.environ.update({key: value for key, value in self.env.items() if key.startswith("GUARDSVC_")})
        from guardsvc import create_app
        self.app = app or create_app()
        self._other_blocks(args.blocks)
        (folder / "guarded_site.py").write_text(SITE)
        self.site_port, self.guardsvc_port = free_port(), free_port()
        self.guarded, self.unguarded = free_port(), free_port()
        self._spawn(gunicorn("guarded_site:app", self.site_port, os.environ.copy(), cwd=folder), self.site_port, "site")
        self._spawn(gunicorn("wsgi:app", self.guardsvc_port, self.env), self.guardsvc_port, "guardsvc")
        unguarded = f"""
            set_real_ip_from 127.0.0.1;
            real_ip_header {VISITOR_HEADER};
            server {{
                listen 127.0.0.1:{self.unguarded};
                location / {{
                    proxy_pass http://127.0.0.1:{self.site_port};
                    proxy_set_header Host $host;
                    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                    proxy_set_header X-Forwarded-Proto $scheme;
                }}
            }}
        """
        (folder / "nginx.conf").write_text(nginx_conf(
            folder, port=self.guarded, guardsvc=f"127.0.0.1:{self.guardsvc_port}",
            app=f"127.0.0.1:{self.site_port}", secret=SECRET, workers=2, http_extra=unguarded))
        nginx = subprocess.Popen([str(NGINX), "-p", str(folder), "-c", str(folder / "nginx.conf")])
        self._spawn(nginx, self.guarded, "nginx")

    def _spawn(self, process, port, what):
        self.processes.append(process)
        wait_for_port(port, process, what)

    def _other_blocks(self, count):
        from guardsvc.blocks.service import create_block
        from guardsvc.extensions import db

        with self.app.app_context():
            for index in range(count):
                if index % 10 == 0:
                    create_block(network=f"198.{18 + index % 2}.{index % 256}.0/24", reason="bench")
                elif index % 10 == 1:
                    create_block(device_id=f"bench-device-{index}", reason="bench")
                else:
                    create_block(network=f"203.0.{index // 250}.{index % 250}", reason="bench")
            db.session.commit()

    def block(self, **target):
        from guardsvc.blocks.service import create_block
        from guardsvc.extensions import db

        with self.app.app_context():
            reference = create_block(reason="bench probe", **target).reference
            db.session.commit()
            return reference

    def lift(self, reference):
        from guardsvc.blocks.service import lift_block
        from guardsvc.extensions import db

        with self.app.app_context():
            lift_block(reference)
            db.session.commit()

    def stop(self):
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def status_of(port, visitor):
    return requests.get(f"http://127.0.0.1:{port}/produk/1", timeout=10, headers={
        VISITOR_HEADER: visitor[0], "Cookie": f"guardsvc_device={visitor[1]}"}).status_code


def time_until(port, visitor, wanted):
    started = time.monotonic()
    while status_of(port, visitor) != wanted:
        if time.monotonic() - started > 30:
            return float("inf")
        time.sleep(0.02)
    return time.monotonic() - started


def probes(stack, args, rng):
    """(enforced after, lifted after) in seconds for blocks on devices and on addresses."""
    enforced, lifted = [], []
    for index in range(args.probes):
        visitor = visitors(1, rng)[0]
        assert status_of(stack.guarded, visitor) == 200
        time.sleep(rng.random())  # any moment of the pull cycle
        target = {"device_id": visitor[1]} if index % 2 == 0 else {"network": visitor[0]}
        reference = stack.block(**target)
        enforced.append(time_until(stack.guarded, visitor, 403))
        stack.lift(reference)
        lifted.append(time_until(stack.guarded, visitor, 200))
    return enforced, lifted


def require_tools():
    """Stop with the reason when nginx with Lua or wrk is missing."""
    if missing():
        raise SystemExit(missing())
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: scripts/bench installs it (apt-get install wrk)")


def main():
    args = parse_args()
    require_tools()
    rng = random.Random(2026)
    folder = Path(tempfile.mkdtemp(prefix="guardsvc-edge-"))
    stack = Stack(folder, args)
    try:
        crowd = visitors(args.visitors, rng)
        script = folder / "visitors.lua"
        script.write_text(WRK_SCRIPT % {"visitors": ", ".join(f'{{"{a}", "{d}"}}' for a, d in crowd),
                                        "seed": 2026, "header": VISITOR_HEADER})
        for visitor in crowd[:50]:  # the list has arrived: the guarded port answers visitors on its own
            assert status_of(stack.guarded, visitor) == 200
        results = {"unguarded": [], "guarded": []}
        for _ in range(args.rounds):
            for name, port in (("unguarded", stack.unguarded), ("guarded", stack.guarded)):
                results[name].append(wrk(f"http://127.0.0.1:{port}", script, args))
        found = {}
        load = threading.Thread(target=lambda: found.update(loaded=wrk(f"http://127.0.0.1:{stack.guarded}",
                                                                       script, args)))
        load.start()
        time.sleep(0.5)
        enforced, lifted = probes(stack, args, rng)
        load.join()
    finally:
        stack.stop()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{args.visitors} returning visitors, wrk 2 threads x 16 connections, {args.duration} s x "
          f"{args.rounds} runs each, {args.blocks} blocks listed at the edge, nginx 2 workers, site gunicorn -w 2")
    print(f"{'':12} {'req/s (runs)':>24} {'p99 ms':>8} {'non-2xx':>8}")
    medians = {}
    for name, runs in results.items():
        medians[name] = statistics.median(run["rps"] for run in runs)
        rates = " / ".join(f"{run['rps']:,.0f}" for run in runs)
        print(f"{name:12} {rates:>24} "
              f"{max(run['p99'] for run in runs):8.1f} {sum(run['bad'] for run in runs):8}")
    print(f"ratio guarded / unguarded: {medians['guarded'] / medians['unguarded']:.2f}")
    loaded = found.get("loaded", {})
    print(f"during the probes the guarded site served {loaded.get('rps', 0):,.0f} req/s")
    print(f"new block enforced after (s): {', '.join(f'{value:.2f}' for value in enforced)}; "
          f"max {max(enforced):.2f}")
    print(f"lift honoured after (s): {', '.join(f'{value:.2f}' for value in lifted)}; max {max(lifted):.2f}")


if __name__ == "__main__":
    main()
