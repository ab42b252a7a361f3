"""The shapes operators run, side by side with the raw-SQL reference, in one run.

For each shape, guardsvc (``gunicorn wsgi:app`` with the project's configuration) and the
reference (``bench/reference_app.py``: the same statements through the driver, the same limiter
round trip) are served with the same workers and threads on the same cores, and each hot path is
loaded with wrk (2 threads x 16 connections), the two contenders alternating round by round.
It prints, per shape and path, the medians of req/s and p99 of both, guardsvc's share of the
reference's throughput against the contract's target, and the non-2xx answers; beside them, the CPU
time each server (its master and workers, every thread) spent a request during the run, and the
reference's over guardsvc's: the part of a request that is the server's own, without wrk's and the
kernel's share of the machine, which a busy machine disturbs less than a rate.

    .venv/bin/python bench/shapes.py [--database-url postgresql://...] [--rounds 3] [--duration 5]
        [--shapes default,sqlite-2-redis,postgresql-2-redis] [--only check,submit,save-my-ip]

Shapes:
  default            ``make run``'s: SQLite in the instance folder, no worker count and no limit store
                     set (a worker per core, limits in the instance folder's LMDB file); the
                     reference counts in an LMDB file of its own
  sqlite-2-redis     SQLite, 2 workers, limits in Redis (the reference: the same Lua round trip)
  postgresql-2-redis PostgreSQL (--database-url or GUARDSVC_BENCH_DATABASE_URL), 2 workers, Redis

Limits are raised (a million a minute) so that no answer is a 429, but every limited request
still counts, on both sides. Every submission and save-my-ip comes from a new address and device.
"""
import argparse
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import hotpaths  # noqa: E402
from guardsvc.config import machine_cores  # noqa: E402

TARGETS = {"check": 0.9, "submit": 0.8, "save-my-ip": 0.7}
P99_TARGET_MS = 100
REDIS = "redis://127.0.0.1:6379/0"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("GUARDSVC_BENCH_DATABASE_URL"))
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="alternations per path")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tickets", type=int, default=1000)
    parser.add_argument("--shapes", default="default,sqlite-2-redis,postgresql-2-redis")
    parser.add_argument("--only", default="check,submit,save-my-ip")
    parser.add_argument("--settle", type=float, default=5, help="seconds to wait after the servers answer")
    return parser.parse_args()


class Served:
    """A gunicorn process (its own process group) answering /healthz."""

    def __init__(self, name, argv, env, port=None):
        self.name = name
        self.port = port or hotpaths.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(argv(self.port), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                        start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{name} exited with {self.process.returncode}")
            try:
                if requests.get(self.url + "/healthz", timeout=2).ok:
                    return
            except requests.RequestException:
                time.sleep(0.3)
        raise RuntimeError(f"{name} did not start")

    def workers(self):
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True)
        return len(found.stdout.split())

    def cpu_seconds(self):
        """CPU time used so far by the server: the master and every worker (all their threads)."""
        pids = [self.process.pid]
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True)
        pids += [int(pid) for pid in found.stdout.split()]
        total = 0
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            except FileNotFoundError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime (after the command's closing paren)
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def paths(token, tickets):
    """The three hot paths, the same URLs and headers for guardsvc and the reference."""
    numbers = [row["ticket_number"] for row in hotpaths.ticket_rows(min(tickets, 200))]
    json = {"Content-Type": "application/json", "Accept": "application/json"}
    return {
        "check": hotpaths.Path_("GET", [f"/api/guard/unblock-tickets/check/{n}" for n in numbers]),
        "submit": hotpaths.Path_("POST", ["/api/guard/unblock-tickets/submit"], json, hotpaths.SUBMIT_BODY, True),
        "save-my-ip": hotpaths.Path_("POST", ["/api/security/trusted-ips/save-my-ip"],
                                     {**json, "Authorization": f"Bearer {token}"},
                                     '{"device_name": "Laptop kantor"}', True),
    }


def prepare(shape, dbs, folder, tickets):
    """Migrate and seed guardsvc's database; copy it for the reference. Returns (env, token, reference url)."""
    instance = folder / shape / "instance"
    instance.mkdir(parents=True)
    raised = {f"GUARDSVC_{k}": v for k, v in hotpaths.RAISED_LIMITS.items()}
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("GUARDSVC_", "PROMETHEUS_"))}
    env.update(raised, GUARDSVC_INSTANCE_PATH=str(instance), GUARDSVC_SECRET_KEY="bench-secret-key",
               GUARDSVC_LOG_LEVEL="WARNING", GUARDSVC_PROXY_COUNT="1",
               GUARDSVC_FORWARD_AUTH_SECRET=hotpaths.PROXY_SECRET)
    if shape.startswith("postgresql"):
        url = dbs.url(shape.replace("-", "_"))
        env["GUARDSVC_DATABASE_URL"] = url
    else:
        url = f"sqlite:///{instance / 'guardsvc.db'}"  # the default place, as make run has it
    if shape != "default":
        env.update(GUARDSVC_WORKERS="2", GUARDSVC_RATELIMIT_STORAGE_URI=REDIS,
                   GUARDSVC_RATELIMIT_KEY_PREFIX=f"bench-{secrets.token_hex(4)}")
    hotpaths.flask(env, "db", "upgrade")
    hotpaths.flask(env, "users", "create", hotpaths.EMAIL, "--name", "Bench", "--password", hotpaths.PASSWORD)
    token = hotpaths.flask(env, "tokens", "create", hotpaths.EMAIL, "--name", "bench")
    hotpaths.insert_tickets(url, tickets)
    if url.startswith("sqlite"):
        reference_url = f"sqlite:///{folder / shape / 'reference.db'}"
        shutil.copy(instance / "guardsvc.db", folder / shape / "reference.db")
    else:
        reference_url = copy_database(dbs, url)
    return env, token, reference_url


def copy_database(dbs, url):
    """A PostgreSQL copy of ``url``'s database (its template), dropped with the run's others."""
    from sqlalchemy.engine import make_url

    source = make_url(url).database
    copy = f"{source}_ref"
    dbs._ddl(f"CREATE DATABASE {copy} TEMPLATE {source}")
    dbs.databases.append(copy)
    return make_url(url).set(database=copy).render_as_string(hide_password=False)


def start(shape, env, reference_url, folder):
    """Both servers of a shape, the reference with guardsvc's workers and threads."""
    from guardsvc.config import server_settings

    guardsvc = Served(f"guardsvc/{shape}", lambda port: [str(hotpaths.BIN / "gunicorn"), "wsgi:app"],
                      env, port=int(env["GUARDSVC_BIND"].rpartition(":")[2]))
    saved = {name: os.environ.get(name) for name in ("GUARDSVC_WORKERS", "GUARDSVC_RATELIMIT_STORAGE_URI")}
    for name in saved:
        if name in env:
            os.environ[name] = env[name]
        else:
            os.environ.pop(name, None)
    sizes = server_settings()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    limits = f"lmdb:{folder / shape / 'reference-limits.lmdb'}" if shape == "default" else REDIS
    reference_env = {**os.environ, "REFERENCE_DATABASE_URL": reference_url, "REFERENCE_LIMITS": limits,
                     "REFERENCE_PENDING_PER_IP": hotpaths.RAISED_LIMITS["PENDING_PER_IP"]}
    reference = Served(f"reference/{shape}", lambda port: [
        str(hotpaths.BIN / "gunicorn"), "-c", str(ROOT / "bench" / "reference_gunicorn.conf.py"),
        "-k", "gthread", "-w", str(sizes["workers"]), "--threads",
        str(sizes["threads"]), "-b", f"127.0.0.1:{port}", "--log-level", "warning", "bench.reference_app:app"],
        reference_env)
    return guardsvc, reference, sizes


def main():
    args = parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing (apt-get install wrk)")
    shapes = [s for s in args.shapes.split(",") if s]
    if any(s.startswith("postgresql") for s in shapes) and not args.database_url:
        shapes = [s for s in shapes if not s.startswith("postgresql")]
        print("no --database-url: PostgreSQL shapes skipped")
    names = [n for n in args.only.split(",") if n]
    dbs = hotpaths.Databases(args.database_url)
    folder = dbs.folder
    load = argparse.Namespace(threads=args.threads, connections=args.connections, duration=args.duration)
    table = []
    try:
        for shape in shapes:
            env, token, reference_url = prepare(shape, dbs, folder, args.tickets)
            port = hotpaths.free_port()
            env["GUARDSVC_BIND"] = f"127.0.0.1:{port}"
            guardsvc, reference, sizes = start(shape, env, reference_url, folder)
            try:
                print(f"\n{shape}: {guardsvc.workers()} guardsvc workers / {reference.workers()} reference "
                      f"workers x {sizes['threads']} threads; {machine_cores()} cores; load average "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
                hot = paths(token, args.tickets)
                # gunicorn answers once one worker has booted; the others may still be importing (several
                # seconds on a busy machine), and each process's first requests fill its caches: a
                # discarded warm-up round of every path on both servers first.
                warm = argparse.Namespace(threads=args.threads, connections=args.connections, duration=4)
                time.sleep(args.settle)
                for name in names:
                    for server in (reference, guardsvc):
                        hotpaths.wrk(server.url, hot[name], warm, folder)
                for name in names:
                    samples = {"reference": [], "guardsvc": []}
                    for _ in range(args.rounds):
                        for label, server in (("reference", reference), ("guardsvc", guardsvc)):
                            samples[label].append(_measured(server, hot[name], load, folder))
                    table.append((shape, name, _medians(samples["reference"]), _medians(samples["guardsvc"])))
                    _print_row(*table[-1])
            finally:
                guardsvc.stop()
                reference.stop()
    finally:
        dbs.close()
    print("\nsummary (medians of the rounds)")
    _header()
    for row in table:
        _print_row(*row)


def _measured(server, path_, load, folder):
    """One wrk run, with the CPU time the server spent a request (µs) beside its rate."""
    before = server.cpu_seconds()
    result = hotpaths.wrk(server.url, path_, load, folder)
    result["cpu_us"] = (server.cpu_seconds() - before) / max(1, result["total"]) * 1e6
    return result


def _medians(results):
    return {"rps": statistics.median(r["rps"] for r in results),
            "cpu_us": statistics.median(r["cpu_us"] for r in results),
            "p99": statistics.median(r["p99"] for r in results),
            "bad": sum(r["bad"] for r in results), "total": sum(r["total"] for r in results)}


def _header():
    print(f"{'shape':20}{'path':12}{'ref req/s':>10}{'guardsvc':>10}{'ratio':>8}{'target':>8}"
          f"{'ref p99':>9}{'p99 ms':>9}{'non-2xx':>10}  {'ref cpu us':>10}{'cpu us':>8}{'cpu ratio':>10}")


def _print_row(shape, name, ref, ours):
    ratio = ours["rps"] / ref["rps"] if ref["rps"] else float("nan")
    met = "ok" if ratio >= TARGETS[name] and ours["p99"] <= P99_TARGET_MS else "MISS"
    print(f"{shape:20}{name:12}{ref['rps']:10.0f}{ours['rps']:10.0f}{ratio:8.2f}{TARGETS[name]:8.1f}"
          f"{ref['p99']:9.1f}{ours['p99']:9.1f}{ours['bad']:>5}/{ref['bad']:<4} {met}"
          f"{ref['cpu_us']:10.0f}{ours['cpu_us']:8.0f}{ref['cpu_us'] / ours['cpu_us']:10.2f}", flush=True)


if __name__ == "__main__":
    main()
