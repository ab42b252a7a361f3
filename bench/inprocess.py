"""Per-request cost of each hot path inside one process, without a server or a network.

The same hot paths as ``bench/hotpaths.py``, called straight through each
application's WSGI callable with a prepared environ, alternating guardsvc and
the minimal app in small batches so that machine noise hits both alike. It
prints microseconds per request and the ratio of throughputs; ``--profile
NAME`` prints a cProfile of guardsvc on that path instead. This is the tool for
finding where time goes; ``bench/hotpaths.py`` is the figure that counts
(gunicorn, wrk, real sockets).

    .venv/bin/python bench/inprocess.py [--requests 3000] [--only check,submit-json]
    .venv/bin/python bench/inprocess.py --profile check [--sort tottime]
    .venv/bin/python bench/inprocess.py --only submit-json --without confirmation,ceiling,block

``--without`` is attribution, never a figure to report as guardsvc's: it
switches off parts of the submission (each a rule the contract requires) to
show what each one costs against the minimal app's single INSERT.
"""
import argparse
import cProfile
import io
import itertools
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import hotpaths  # noqa: E402

FOLDER = Path(tempfile.mkdtemp(prefix="guardsvc-inproc-"))
ADDRESSES = itertools.count(1)  # a new client address for each request of a path with fresh clients
RAISED = {k: v for k, v in hotpaths.RAISED_LIMITS.items()}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--only")
    parser.add_argument("--profile", help="profile guardsvc on this path")
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--limit", type=int, default=45)
    parser.add_argument("--storage", default="memory://")
    parser.add_argument("--against", choices=("minimal", "reference"), default="minimal",
                        help="reference: bench/reference_app.py (guardsvc's statements, raw), on a copy of "
                             "guardsvc's database, counting limits in an LMDB file when --storage is one")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: this process's CPU time, which other processes on a busy machine "
                             "disturb less than the wall clock")
    parser.add_argument("--without", default="",
                        help="comma-separated parts of a submission to switch off, to see their cost: "
                             + ", ".join(sorted(WITHOUT)))
    return parser.parse_args()


def _no_confirmation():
    from guardsvc.appeals import service
    service.prepare_confirmation = lambda values: None
    service.store_confirmation = lambda ticket, confirmation: None


def _no_ceiling():
    from guardsvc.appeals import service
    service._pending_on_network = lambda ip_address, ceiling: 0


def _no_block():
    from guardsvc.appeals import service
    service.find_active_block_id = lambda *args: None


# Parts of a submission that --without can switch off (for attribution only).
WITHOUT = {"confirmation": _no_confirmation, "ceiling": _no_ceiling, "block": _no_block}


def environ_for(path_, counter, run):
    """A fresh WSGI environ for one request of ``path_`` (a hotpaths.Path_)."""
    from werkzeug.test import EnvironBuilder

    headers = dict(path_.headers)
    if path_.unique_device:
        headers["X-Device-Id"] = f"{run}-{counter}"
        n = next(ADDRESSES)
        headers["X-Forwarded-For"] = f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"
    target = path_.paths[counter % len(path_.paths)]
    builder = EnvironBuilder(path=target, method=path_.method, headers=headers,
                             data=path_.body.encode() if path_.body else None,
                             environ_base={"REMOTE_ADDR": "127.0.0.1"})
    try:
        return builder.get_environ()
    finally:
        builder.close()


def call(app, environ):
    status = []

    def start_response(code, headers, exc_info=None):
        status.append(code)

    body = app(environ, start_response)
    try:
        for _ in body:
            pass
    finally:
        if hasattr(body, "close"):
            body.close()
    return int(status[0].split()[0])


def build():
    guardsvc_url = f"sqlite:///{FOLDER / 'guardsvc.db'}"
    instance = FOLDER / "instance"
    instance.mkdir()
    os.environ.update(hotpaths.guardsvc_env(guardsvc_url, instance))
    for key, value in RAISED.items():
        os.environ[f"GUARDSVC_{key}"] = value
    token = hotpaths.prepare_guardsvc(guardsvc_url, instance)
    hotpaths.insert_tickets(guardsvc_url, 1000)
    from guardsvc import create_app

    if AGAINST == "reference":
        import shutil

        shutil.copy(FOLDER / "guardsvc.db", FOLDER / "reference.db")
        os.environ["REFERENCE_DATABASE_URL"] = f"sqlite:///{FOLDER / 'reference.db'}"
        os.environ["REFERENCE_PENDING_PER_IP"] = RAISED["PENDING_PER_IP"]
        if os.environ["GUARDSVC_RATELIMIT_STORAGE_URI"].startswith("guardsvc-lmdb"):
            os.environ["REFERENCE_LIMITS"] = f"lmdb:{FOLDER / 'reference-limits.lmdb'}"
        from bench import reference_app

        return create_app(), reference_app.app, token
    minimal_url = f"sqlite:///{FOLDER / 'minimal.db'}"
    hotpaths.prepare_minimal(minimal_url, token, 1000, hotpaths.password_hash(guardsvc_url))
    from bench import minimal_app

    app = create_app()
    return app, minimal_app.app, token


class LocalServer:
    """What hotpaths.guardsvc_paths needs of a server: a URL that a requests.Session can reach."""

    def __init__(self, app):
        from werkzeug.serving import make_server
        import threading

        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


AGAINST = "minimal"
CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCK["wall"]


def measure(app, path_, count, run):
    environs = [environ_for(path_, i, run) for i in range(count)]
    statuses = {}
    start = clock()
    for environ in environs:
        code = call(app, environ)
        statuses[code] = statuses.get(code, 0) + 1
    return (clock() - start) / count * 1e6, statuses


def main():
    global clock, AGAINST
    args = parse_args()
    clock = CLOCK[args.clock]
    AGAINST = args.against
    os.environ["GUARDSVC_RATELIMIT_STORAGE_URI"] = args.storage
    app, minimal, token = build()
    for part in filter(None, args.without.split(",")):
        WITHOUT[part]()
        print(f"switched off for attribution: {part}")
    server = LocalServer(app)
    mini_server = LocalServer(minimal)
    try:
        time.sleep(3.1)  # forms carry a minimum fill time
        ours = hotpaths.guardsvc_paths(server, token, 1000)
        theirs = (hotpaths.minimal_paths(mini_server, token, 1000) if AGAINST == "minimal"
                  else {name: path_ for name, path_ in ours.items()
                        if name in ("check", "submit-json", "save-my-ip-bearer")})
    finally:
        server.stop()
        mini_server.stop()
    names = list(theirs)
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    if args.profile:
        measure(app, ours[args.profile], 200, "warm")
        profiler = cProfile.Profile()
        profiler.enable()
        micros, statuses = measure(app, ours[args.profile], args.requests, "prof")
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.limit)
        print(out.getvalue())
        print(f"{args.profile}: {micros:.0f} us/request under the profiler, statuses {statuses}")
        return
    print(f"{'path':20}{AGAINST + ' us':>12}{'guardsvc us':>13}{'ratio':>8}  statuses")
    batch = max(50, args.requests // 10)
    for name in names:
        measure(app, ours[name], 100, f"w{name}")
        measure(minimal, theirs[name], 100, f"w{name}")
        totals = {"g": 0.0, "m": 0.0}
        seen = {}
        for round_ in range(args.requests // batch):
            micros, statuses = measure(app, ours[name], batch, f"g{name}{round_}")
            totals["g"] += micros
            for code, n in statuses.items():
                seen[code] = seen.get(code, 0) + n
            micros, _ = measure(minimal, theirs[name], batch, f"m{name}{round_}")
            totals["m"] += micros
        rounds = args.requests // batch
        g, m = totals["g"] / rounds, totals["m"] / rounds
        print(f"{name:20}{m:12.0f}{g:13.0f}{m / g:8.2f}  {seen}")


if __name__ == "__main__":
    main()
