"""A million blocks: the guarded site, the edge, the stream, forward auth, the host check, the admin list.

For each database (a temporary SQLite file, and PostgreSQL when --database-url
is given: its public schema is emptied first), one run:

1. migrate, add 20 blocks, time forward auth and the host check (Flask test
   client, in-process, median of --requests after a warm-up), the stream's
   startup pull and the admin block list;
2. bulk-load 1,000,000 blocks in the contract's mix (3/4 single IPv4
   addresses, 1/8 IPv4 /24, 1/8 IPv6 /64; multi-row INSERTs, COPY on
   PostgreSQL) and time the same again, plus a stream delta, the edge's
   whole list and one delta, and the database's size;
3. start bench/edge_cost.py's stack on that database (nginx with the shipped
   files and 2 workers, guardsvc under gunicorn, a small site) and measure how
   long nginx takes to load the whole list, the guarded / unguarded throughput
   ratio with 1,000 returning visitors (wrk), how soon new blocks and lifts
   are honoured on every worker while under load, and nginx's memory (the sum
   of its processes' PSS, and the largest RSS).

Prints one table, the databases side by side.

    .venv/bin/python bench/million_blocks.py [--database-url postgresql://postgres@127.0.0.1:5432/DB]
        [--blocks 1000000] [--duration 5] [--rounds 2] [--probes 4] [--skip-sqlite]
"""
import argparse
import ipaddress
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import edge_cost  # noqa: E402
from blocks_lookup import _run_ddl, make_app  # noqa: E402
from hotpaths import EMAIL, PASSWORD, flask, guardsvc_env  # noqa: E402

BATCH = 20_000
FREE_CLIENTS = [("198.18.7.7", "bench-free-1"), ("2001:db8:ffff::77", "bench-free-2"), ("10.1.2.3", "bench-free-3")]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="PostgreSQL URL (its public schema is emptied)")
    parser.add_argument("--skip-sqlite", action="store_true")
    parser.add_argument("--blocks", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--visitors", type=int, default=1000)
    parser.add_argument("--probes", type=int, default=4)
    return parser.parse_args()


def network_of(index):
    """The contract's mix: 6 of 8 single IPv4 addresses, 1 of 8 IPv4 /24, 1 of 8 IPv6 /64 (all distinct)."""
    kind = index % 8
    if kind < 6:
        value = (11 << 24) + index  # 11.0.0.0 on: no visitor (10.x) and no free client is in them
        return f"{value >> 24}.{(value >> 16) & 255}.{(value >> 8) & 255}.{value & 255}/32"
    if kind == 6:
        value = (100 << 24) + (index << 8)
        return f"{value >> 24}.{(value >> 16) & 255}.{(value >> 8) & 255}.0/24"
    return ipaddress.IPv6Network(((0x2a00 << 112) + (index << 64), 64)).with_prefixlen


def load_blocks(app, count):
    """Bulk-load ``count`` active blocks (bench-side, not the import command); seconds taken."""
    from sqlalchemy import insert, text

    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db
    from guardsvc.storage import clock

    now = clock.utcnow()
    started = time.perf_counter()
    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            connection = db.engine.raw_connection()
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SET statement_timeout = 0")  # one COPY of a million rows
                    with cursor.copy("COPY blocks (reference, network, reason, created_at, device_issued, "
                                     "self_release) FROM STDIN") as copy:
                        for index in range(count):
                            copy.write_row((f"BLK-{index:08X}", network_of(index), "bench", now, False, False))
                connection.commit()
                # What autovacuum would do next, done now: the figures are of a settled table, not
                # of one being vacuumed beside the measurements.
                connection.driver_connection.autocommit = True
                with connection.cursor() as cursor:
                    cursor.execute("SET statement_timeout = 0")
                    cursor.execute("VACUUM ANALYZE blocks, edge_changes")
                    cursor.execute("RESET statement_timeout")
                connection.driver_connection.autocommit = False  # back to the pool as it came
            finally:
                connection.close()
        else:
            for start in range(0, count, BATCH):
                db.session.execute(insert(Block), [
                    {"reference": f"BLK-{index:08X}", "network": network_of(index), "reason": "bench",
                     "created_at": now} for index in range(start, min(count, start + BATCH))])
            db.session.commit()
            db.session.execute(text("ANALYZE"))
            db.session.commit()
    return time.perf_counter() - started


def add_some_blocks(app, count):
    from guardsvc.blocks.service import create_block
    from guardsvc.extensions import db

    with app.app_context():
        for index in range(count):
            create_block(network=f"203.0.113.{index + 1}" if index % 2 else f"2001:db8:{index}::/48", reason="bench")
        db.session.commit()


def median_ms(function, count, warmup=20):
    samples = []
    for index in range(count + warmup):
        started = time.perf_counter()
        function(index)
        if index >= warmup:
            samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def timed(function):
    started = time.perf_counter()
    value = function()
    return time.perf_counter() - started, value


class Figures:
    """Times measured in-process on one app (its database holds what it holds now)."""

    def __init__(self, app, token, bouncer_key, requests):
        self.app, self.token, self.key, self.requests = app, token, bouncer_key, requests
        self.client = app.test_client()

    def forward_auth(self):
        def ask(index):
            ip, device = FREE_CLIENTS[index % len(FREE_CLIENTS)]
            response = self.client.get("/api/guard/forward-auth", headers={
                "X-Forwarded-For": ip, "X-Device-Id": device, "X-Guardsvc-Secret": edge_cost.SECRET},
                environ_base={"REMOTE_ADDR": "127.0.0.1"})
            assert response.status_code == 204, response.status_code
        return median_ms(ask, self.requests)

    def host_check(self):
        def ask(index):
            ip, device = FREE_CLIENTS[index % len(FREE_CLIENTS)]
            response = self.client.get(f"/api/guard/blocks/check?ip={ip}&device_id={device}",
                                       headers={"Authorization": f"Bearer {self.token}"})
            assert response.status_code == 200 and not response.get_json()["data"]["blocked"], response.data
        return median_ms(ask, self.requests)

    def admin_list(self):
        def ask(index):
            response = self.client.get(f"/api/admin/blocks?active=true&page={1 + index % 3}",
                                       headers={"Authorization": f"Bearer {self.token}"})
            assert response.status_code == 200, response.data
        return median_ms(ask, max(5, self.requests // 20), warmup=2)

    def stream(self, startup):
        """(seconds, bytes) of one stream pull."""
        started = time.perf_counter()
        response = self.client.get(f"/crowdsec/v1/decisions/stream?startup={'true' if startup else 'false'}",
                                   headers={"X-Api-Key": self.key}, buffered=False)
        size = sum(len(chunk) for chunk in response.response)
        response.close()
        assert response.status_code == 200
        return time.perf_counter() - started, size

    def edge(self, since=None):
        """(seconds, bytes, cursor) of one edge list pull."""
        started = time.perf_counter()
        response = self.client.get("/edge/v1/decisions", query_string={} if since is None else {"since": since},
                                   headers={"X-Guardsvc-Secret": edge_cost.SECRET})
        assert response.status_code == 200
        return time.perf_counter() - started, len(response.data), int(response.headers["X-Guardsvc-Cursor"])


def database_size(app, sqlite_path):
    from sqlalchemy import text

    from guardsvc.extensions import db

    if sqlite_path:
        return sum(path.stat().st_size for path in sqlite_path.parent.glob(sqlite_path.name + "*"))
    with app.app_context():
        return db.session.scalar(text("SELECT pg_database_size(current_database())"))


def nginx_memory(master_pid):
    """(sum of PSS, largest RSS) in MiB over nginx's master and workers."""
    pids = [master_pid] + [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()
                           and _parent(entry) == master_pid]
    pss = rss = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss += int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = max(rss, int(line.split()[1]))
    return pss / 1024, rss / 1024


def _parent(entry):
    try:
        return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def judged_at_edge(stack, visitor):
    """True once nginx answered this visitor on its own copy of the list (the access log says "edge")."""
    edge_cost.status_of(stack.guarded, visitor)
    lines = (stack.folder / "access.log").read_text().splitlines()
    return bool(lines) and lines[-1].endswith(" edge")


def run_database(name, database_url, sqlite_path, args, results):
    figures = results.setdefault(name, {})
    app = make_app(database_url)
    folder = Path(tempfile.mkdtemp(prefix=f"guardsvc-million-{name}-"))
    env = guardsvc_env(database_url, folder)
    flask(env, "users", "create", EMAIL, "--name", "Bench", "--password", PASSWORD, "--role", "admin")
    token = flask(env, "tokens", "create", EMAIL, "--name", "bench")
    key = flask(env, "bouncers", "add", "bench-firewall")
    app.config["FORWARD_AUTH_SECRET"] = edge_cost.SECRET
    measure = Figures(app, token, key, args.requests)
    add_some_blocks(app, 20)
    figures["forward auth, 20 blocks (ms)"] = measure.forward_auth()
    figures["host check, 20 blocks (ms)"] = measure.host_check()
    figures["admin block list, 20 blocks (ms)"] = measure.admin_list()
    figures["stream startup, 20 blocks (s)"] = measure.stream(True)[0]
    print(f"[{name}] loading {args.blocks:,} blocks ...", flush=True)
    figures["bulk load (s)"] = load_blocks(app, args.blocks)
    figures["database size (MiB)"] = database_size(app, sqlite_path) / 2 ** 20
    figures["forward auth, 1M blocks (ms)"] = measure.forward_auth()
    figures["host check, 1M blocks (ms)"] = measure.host_check()
    figures["admin block list, 1M blocks (ms)"] = measure.admin_list()
    seconds, size = measure.stream(True)
    figures["stream startup, 1M blocks (s)"], figures["stream startup size (MB)"] = seconds, size / 1e6
    add_some_blocks(app, 2)
    figures["stream delta after 2 blocks (ms)"] = measure.stream(False)[0] * 1000
    seconds, size, cursor = measure.edge()
    figures["edge whole list (s)"], figures["edge whole list size (MB)"] = seconds, size / 1e6
    add_some_blocks(app, 2)
    figures["edge delta after 2 blocks (ms)"] = measure.edge(cursor)[0] * 1000
    print(f"[{name}] starting nginx ...", flush=True)
    try:
        run_edge(name, database_url, app, args, figures, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        print(f"[{name}] " + "; ".join(f"{label}: {value:,.2f}" for label, value in figures.items()), flush=True)


def run_edge(name, database_url, app, args, figures, folder):
    args.blocks_listed = args.blocks
    edge_args = argparse.Namespace(duration=args.duration, rounds=args.rounds, visitors=args.visitors, blocks=0,
                                   probes=args.probes)
    rng = random.Random(2026)
    stack = edge_cost.Stack(folder, edge_args, database=database_url, app=app)
    try:
        crowd = edge_cost.visitors(args.visitors, rng)
        started = time.monotonic()
        while not judged_at_edge(stack, crowd[0]):
            if time.monotonic() - started > 120:
                raise SystemExit("nginx never judged on its own copy of the list")
            time.sleep(0.2)
        figures["nginx loads the whole list (s)"] = time.monotonic() - started
        script = folder / "visitors.lua"
        script.write_text(edge_cost.WRK_SCRIPT % {
            "visitors": ", ".join(f'{{"{a}", "{d}"}}' for a, d in crowd), "seed": 2026,
            "header": edge_cost.VISITOR_HEADER})
        for visitor in crowd:  # every visitor has been seen once (returning visitors)
            assert edge_cost.status_of(stack.guarded, visitor) == 200
        runs = {"unguarded": [], "guarded": []}
        for _ in range(args.rounds):
            for which, port in (("unguarded", stack.unguarded), ("guarded", stack.guarded)):
                runs[which].append(edge_cost.wrk(f"http://127.0.0.1:{port}", script, edge_args))
        medians = {which: statistics.median(run["rps"] for run in values) for which, values in runs.items()}
        figures["unguarded (req/s)"], figures["guarded (req/s)"] = medians["unguarded"], medians["guarded"]
        figures["guarded / unguarded"] = medians["guarded"] / medians["unguarded"]
        figures["non-2xx answers"] = sum(run["bad"] for values in runs.values() for run in values)
        load = threading.Thread(target=lambda: edge_cost.wrk(f"http://127.0.0.1:{stack.guarded}", script,
                                                             argparse.Namespace(duration=args.duration * 3)))
        load.start()
        time.sleep(0.5)
        enforced, lifted = edge_cost.probes(stack, edge_args, rng)
        load.join()
        figures["new block enforced, max (s)"], figures["lift honoured, max (s)"] = max(enforced), max(lifted)
        figures["nginx PSS, all processes (MiB)"], figures["nginx largest RSS (MiB)"] = nginx_memory(
            stack.processes[-1].pid)
        errors = [line for line in (folder / "error.log").read_text().splitlines() if "[error]" in line]
        figures["nginx error lines"] = len(errors)
    finally:
        stack.stop()


def main():
    args = parse_args()
    edge_cost.require_tools()
    results = {}
    if not args.skip_sqlite:
        folder = Path(tempfile.mkdtemp(prefix="guardsvc-million-db-"))
        path = folder / "guardsvc.db"
        try:
            run_database("SQLite", f"sqlite:///{path}", path, args, results)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if args.database_url:
        _run_ddl(args.database_url.replace("postgresql://", "postgresql+psycopg://", 1),
                 "DROP SCHEMA public CASCADE", "CREATE SCHEMA public")
        run_database("PostgreSQL", args.database_url, None, args, results)
    names = list(results)
    print(f"\n{args.blocks:,} blocks (3/4 IPv4 addresses, 1/8 IPv4 /24, 1/8 IPv6 /64); nginx 2 workers; "
          f"wrk 2 threads x 16 connections, {args.duration} s x {args.rounds} runs, {args.visitors} visitors")
    print(f"{'':40}" + "".join(f"{name:>14}" for name in names))
    for label in results[names[0]]:
        print(f"{label:40}" + "".join(f"{results[name].get(label, float('nan')):14,.2f}" for name in names))


if __name__ == "__main__":
    main()
