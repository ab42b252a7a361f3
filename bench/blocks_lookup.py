"""How much does the block guard cost per request, with no blocks and with a million?

One run: migrate two fresh databases, leave one with an empty block list and
bulk-insert 1,000,000 active blocks (100,000 of them CIDR ranges, IPv4 and
IPv6, some expiring, some narrowed by a local IP) and 10,000 allow entries
(addresses, ranges, devices) into the other, then time
anonymous guarded requests through the Flask test client against both, in
alternating rounds so that machine noise hits both alike. Prints median and
p95 per request and their ratio.

    .venv/bin/python bench/blocks_lookup.py [--database-url postgresql://...] [--blocks N]

Default: two temporary SQLite files. With --database-url (PostgreSQL) the two
databases are the schemas guardsvc_bench_empty and guardsvc_bench_full of that
database, created for the run and dropped at the end.
"""
import argparse
import gc
import ipaddress
import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Guarded, anonymous and cheap behind the guard: the view answers 401.
GUARDED_PATH = "/api/guard/blocks/check?ip=192.0.2.1"
CLIENTS = [  # (REMOTE_ADDR, X-Device-Id) of clients that are NOT blocked
    ("198.51.100.77", "bench-free-device-1"),
    ("2001:db8:ffff::77", "bench-free-device-2"),
]
BATCH = 20_000


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="PostgreSQL (or other) URL; default: temporary SQLite file")
    parser.add_argument("--blocks", type=int, default=1_000_000, help="total active blocks")
    parser.add_argument("--cidrs", type=int, default=100_000, help="how many of them are CIDR ranges")
    parser.add_argument("--allows", type=int, default=10_000, help="active allow entries")
    parser.add_argument("--requests", type=int, default=4000, help="timed requests per database")
    parser.add_argument("--rounds", type=int, default=8, help="alternations between the two databases")
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args()


def make_app(database_url, schema=None):
    """A migrated app on ``database_url`` (inside PostgreSQL ``schema`` when given)."""
    os.environ.update({
        "GUARDSVC_DATABASE_URL": database_url,
        "GUARDSVC_SECRET_KEY": "bench-secret-key",
        "GUARDSVC_RATELIMIT_ENABLED": "false",
        "GUARDSVC_LOG_LEVEL": "WARNING",
    })
    from flask_migrate import upgrade

    from guardsvc import create_app
    from guardsvc.config import load_settings

    config = {"TESTING": True}
    if schema:
        settings = load_settings(tempfile.gettempdir())
        _run_ddl(settings["SQLALCHEMY_DATABASE_URI"], f"DROP SCHEMA IF EXISTS {schema} CASCADE",
                 f"CREATE SCHEMA {schema}")
        config["SQLALCHEMY_ENGINE_OPTIONS"] = {
            **settings["SQLALCHEMY_ENGINE_OPTIONS"],
            "connect_args": {"options": f"-csearch_path={schema}"}}
    app = create_app(config)
    with app.app_context():
        upgrade()
    return app


@contextmanager
def scratch_app(database_url, schema, sqlite_name, keep=False):
    """A migrated app for one benchmark: on ``database_url`` inside PostgreSQL ``schema`` (dropped at the
    end unless ``keep``), or, with no URL, on a new SQLite file ``sqlite_name`` in a temporary folder."""
    if not database_url:
        database_url = "sqlite:///" + str(Path(tempfile.mkdtemp(prefix="guardsvc-bench-")) / sqlite_name)
    if not database_url.startswith("postgresql"):
        schema = None
    app = make_app(database_url, schema)
    try:
        yield app
    finally:
        if schema and not keep:
            from guardsvc.extensions import db

            with app.app_context():
                db.engine.dispose()
            _run_ddl(app.config["SQLALCHEMY_DATABASE_URI"], f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def _run_ddl(url, *statements):
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(text(statement))
    engine.dispose()


def time_requests(app, count, warmup=50):
    """Per-request wall time (seconds) of ``count`` guarded requests, after a warm-up."""
    client = app.test_client()
    samples = []
    for i in range(count + warmup):
        ip, device = CLIENTS[i % len(CLIENTS)]
        started = time.perf_counter()
        response = client.get(GUARDED_PATH, headers={"X-Device-Id": device}, environ_base={"REMOTE_ADDR": ip})
        elapsed = time.perf_counter() - started
        if response.status_code != 401:  # blocked (403) would mean the benchmark is wrong
            raise SystemExit(f"unexpected status {response.status_code} for {ip}")
        if i >= warmup:
            samples.append(elapsed)
    return samples


def summary(samples):
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


def _covers_a_client(network):
    return any(ipaddress.ip_address(ip) in network for ip, _ in CLIENTS)


def _random_network(rng, version, prefix):
    bits = 32 if version == 4 else 128
    value = rng.getrandbits(bits)
    if version == 6:  # stay inside 2000::/3 like real unicast space
        value = (value & ((1 << 125) - 1)) | (1 << 125)
    cls = ipaddress.IPv4Network if version == 4 else ipaddress.IPv6Network
    return cls((value >> (bits - prefix) << (bits - prefix), prefix))


def block_rows(total, cidrs, rng, now):
    """Rows for a bulk insert: singles (v4/v6), device ids and ranges; none covering CLIENTS."""
    singles = total - cidrs - total // 10
    for i in range(total):
        row = {"reference": f"BLK-{i:08X}", "network": None, "device_id": None, "local_ip": None,
               "reason": "bench", "created_at": now - timedelta(seconds=total - i), "expires_at": None}
        if i < singles:
            version = 4 if i % 4 else 6
            network = _random_network(rng, version, 32 if version == 4 else 128)
        elif i < singles + cidrs:
            version = 4 if i % 3 else 6
            network = _random_network(rng, version, rng.randint(8, 30) if version == 4 else rng.randint(16, 64))
        else:
            network = None
            row["device_id"] = f"bench-device-{i}"
        if network is not None:
            if _covers_a_client(network):
                network = _random_network(rng, 4, 32)
                while _covers_a_client(network):  # pragma: no cover - astronomically rare
                    network = _random_network(rng, 4, 32)
            row["network"] = network.with_prefixlen
        if i % 10 == 0:
            row["expires_at"] = now + timedelta(days=30)
        if i % 50 == 0:
            row["local_ip"] = "192.168.1.10"
        yield row


def allow_rows(total, rng, now):
    """Rows for a bulk insert of allow entries (addresses, ranges, devices); none covering CLIENTS."""
    for i in range(total):
        row = {"network": None, "device_id": None, "reason": "bench", "created_at": now,
               "expires_at": now + timedelta(days=30) if i % 10 == 0 else None}
        if i % 5 == 4:
            row["device_id"] = f"bench-allowed-{i}"
        else:
            network = _random_network(rng, 4 if i % 2 else 6, 32 if i % 5 else 24)
            while _covers_a_client(network):  # pragma: no cover - astronomically rare
                network = _random_network(rng, 4, 32)
            row["network"] = network.with_prefixlen
        yield row


def _insert_all(model, rows):
    from guardsvc.extensions import db
    from sqlalchemy import insert

    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            db.session.execute(insert(model), batch)
            db.session.commit()
            batch = []
    if batch:
        db.session.execute(insert(model), batch)
        db.session.commit()


def fill(app, total, cidrs, allows, seed):
    from sqlalchemy import text

    from guardsvc.storage import clock
    from guardsvc.blocks.models import AllowEntry, Block
    from guardsvc.extensions import db

    rng = random.Random(seed)
    started = time.perf_counter()
    with app.app_context():
        _insert_all(Block, block_rows(total, cidrs, rng, clock.utcnow()))
        _insert_all(AllowEntry, allow_rows(allows, rng, clock.utcnow()))
        if db.engine.dialect.name == "postgresql":
            db.session.execute(text("ANALYZE blocks"))
            db.session.execute(text("ANALYZE allow_entries"))
            db.session.commit()
    return time.perf_counter() - started


def sample_blocked_ip(app):
    """An address inside one of the inserted ranges, to check that the guard really matches."""
    from sqlalchemy import select

    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db

    with app.app_context():
        network = db.session.scalar(select(Block.network).where(
            Block.network.like("%/2_"), Block.local_ip.is_(None)).limit(1))
    return str(ipaddress.ip_network(network).network_address + 1)


def allow_one_address(app, blocked_ip):
    """Allow the address next to ``blocked_ip``, to check that allow entries outrank the range."""
    from guardsvc.blocks.allows import add_allow_entry
    from guardsvc.extensions import db

    allowed = str(ipaddress.ip_address(blocked_ip) + 1)
    with app.app_context():
        add_allow_entry(network=allowed, reason="bench check")
        db.session.commit()
    return allowed


def fmt(seconds):
    return f"{seconds * 1e6:8.0f} µs"


def main():
    args = parse_args()
    workdir = tempfile.TemporaryDirectory(prefix="guardsvc-bench-")
    if args.database_url:
        apps = {name: make_app(args.database_url, f"guardsvc_bench_{name}") for name in ("empty", "full")}
    else:
        apps = {name: make_app(f"sqlite:///{Path(workdir.name) / name}.db") for name in ("empty", "full")}
    print(f"database: {apps['full'].config['SQLALCHEMY_DATABASE_URI'].split('@')[-1]}")
    print(f"request:  GET {GUARDED_PATH} (anonymous, guarded; clients {', '.join(ip for ip, _ in CLIENTS)})")
    try:
        seconds = fill(apps["full"], args.blocks, args.cidrs, args.allows, args.seed)
        print(f"inserted {args.blocks:,} active blocks ({args.cidrs:,} CIDR ranges) and "
              f"{args.allows:,} allow entries in {seconds:.1f} s")
        blocked_ip = sample_blocked_ip(apps["full"])
        status = apps["full"].test_client().get(GUARDED_PATH, environ_base={"REMOTE_ADDR": blocked_ip}).status_code
        print(f"check:    {blocked_ip} inside a stored range -> {status} (expect 403)")
        allowed_ip = allow_one_address(apps["full"], blocked_ip)
        status = apps["full"].test_client().get(GUARDED_PATH, environ_base={"REMOTE_ADDR": allowed_ip}).status_code
        print(f"check:    {allowed_ip} in the same range, allowed -> {status} (expect 401)")
        gc.collect()
        gc.freeze()  # the insert left garbage behind: keep collections equal for both sides
        samples = {name: [] for name in apps}
        for _ in range(args.rounds):
            for name, app in apps.items():
                samples[name] += time_requests(app, args.requests // args.rounds)
    finally:
        if args.database_url:
            _run_ddl(apps["full"].config["SQLALCHEMY_DATABASE_URI"],
                     *(f"DROP SCHEMA IF EXISTS guardsvc_bench_{name} CASCADE" for name in apps))
    empty, full = summary(samples["empty"]), summary(samples["full"])
    print(f"{'':16}{'median':>11}{'p95':>11}")
    print(f"{'empty list':16}{fmt(empty[0])}{fmt(empty[1])}")
    print(f"{args.blocks:,} blocks".ljust(16) + f"{fmt(full[0])}{fmt(full[1])}")
    print(f"{'ratio':16}{full[0] / empty[0]:10.2f}x{full[1] / empty[1]:10.2f}x")


if __name__ == "__main__":
    main()
