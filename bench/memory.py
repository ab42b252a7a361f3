"""Does a worker's memory stay flat over many requests?

Runs ``--requests`` mixed requests (pages, the appeal form, ticket checks,
appeal submissions, JSON status checks, unknown URLs) in-process through the
WSGI app, with rate limits on and counted in memory (the default store), from
a new client address every request, and prints the resident set size (RSS)
every ``--every`` requests and what the rate-limit store holds.

    .venv/bin/python bench/memory.py [--requests 100000] [--every 10000]

Uses a temporary SQLite file.
"""
import argparse
import gc
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=10_000)
    return parser.parse_args()


def rss_mib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def make_app():
    folder = Path(tempfile.mkdtemp(prefix="guardsvc-memory-"))
    os.environ.update({
        "GUARDSVC_DATABASE_URL": f"sqlite:///{folder / 'memory.db'}",
        "GUARDSVC_SECRET_KEY": "bench-secret-key",
        "GUARDSVC_RATELIMIT_ENABLED": "true",
        "GUARDSVC_RATELIMIT_STORAGE_URI": "memory://",
        "GUARDSVC_APPEAL_MIN_FILL_SECONDS": "0",
        "GUARDSVC_LOG_LEVEL": "ERROR",
    })
    from flask_migrate import upgrade

    from guardsvc import create_app

    app = create_app()
    with app.app_context():
        upgrade()
    return app


def request_mix(client, i):
    """One request of the mix; every client address is new (worst case for per-client counters)."""
    ip = f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"
    env = {"REMOTE_ADDR": ip}
    kind = i % 6
    if kind == 0:
        return client.get("/", environ_base=env)
    if kind == 1:
        return client.get("/banding", environ_base=env)
    if kind == 2:
        return client.get(f"/api/guard/unblock-tickets/check/TKT-{i:08X}", environ_base=env)
    if kind == 3:
        body = {"name": "Budi Santoso", "email": "budi@example.com", "phone": "0812-3456-7890",
                "reason": "Saya tidak merasa melakukan pelanggaran."}
        return client.post("/api/guard/unblock-tickets/submit", json=body, environ_base=env,
                           headers={"Accept": "application/json", "X-Device-Id": uuid.uuid4().hex})
    if kind == 4:
        return client.get("/healthz", environ_base=env)
    return client.get(f"/tidak-ada/{i}", environ_base=env)


def limiter_keys(app):
    from guardsvc.ratelimits.limits import EXTENSION

    storage = app.extensions[EXTENSION].primary
    return len(getattr(storage, "storage", ())), len(getattr(storage, "locks", ()))


def main():
    args = parse_args()
    app = make_app()
    client = app.test_client(use_cookies=False)
    for i in range(200):  # warm-up: imports, templates, caches
        request_mix(client, i)
    gc.collect()
    baseline = rss_mib()
    print(f"after warm-up: RSS {baseline:.1f} MiB")
    started = time.perf_counter()
    statuses = {}
    for i in range(1, args.requests + 1):
        status = request_mix(client, 1000 + i).status_code
        statuses[status] = statuses.get(status, 0) + 1
        if i % args.every == 0:
            gc.collect()
            counters, locks = limiter_keys(app)
            print(f"{i:>8} requests: RSS {rss_mib():6.1f} MiB (+{rss_mib() - baseline:5.1f}), "
                  f"rate-limit counters {counters}, locks {locks}, {time.perf_counter() - started:.0f} s",
                  flush=True)
    print("statuses:", dict(sorted(statuses.items())))


if __name__ == "__main__":
    main()
