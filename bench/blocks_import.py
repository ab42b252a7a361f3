"""How long does ``flask --app guardsvc blocks import`` take for a million-line blocklist?

Writes a list in the contract's mix (section 15: three quarters single IPv4
addresses, an eighth IPv4 /24 ranges, an eighth IPv6 /64 ranges, in random
order, with a FireHOL-style header and a few Spamhaus-style trailing comments),
migrates a fresh database, then runs the real command as an operator would: a
``flask`` process of its own. Prints the command's wall time, rows per second,
the database's size before and after, and the command's peak memory.

    .venv/bin/python bench/blocks_import.py [--lines N] [--database-url postgresql://...]

Default: a temporary SQLite file. With --database-url (PostgreSQL, e.g.
postgresql://postgres@127.0.0.1:5432/guardsvc) a database named
guardsvc_bench_import is created on that server for the run and dropped at the end.
Give both --sqlite and --database-url to run the two one after the other.
"""
import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DATABASE = "guardsvc_bench_import"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="entries in the list")
    parser.add_argument("--database-url", help="a PostgreSQL server to run on (a database of its own is made)")
    parser.add_argument("--sqlite", action="store_true", help="with --database-url: run on SQLite too")
    parser.add_argument("--seed", type=int, default=37)
    return parser.parse_args()


def write_list(path, count, seed):
    """``count`` distinct entries in the contract's mix, one a line, with comments as real lists have them."""
    rng = random.Random(seed)
    singles, ranges_v4 = count * 3 // 4, count // 8
    ranges_v6 = count - singles - ranges_v4
    entries = set()
    while len(entries) < singles:  # public-looking addresses, never 127/8 or 0/8
        value = rng.randrange(1 << 24, 127 << 24) if rng.random() < 0.5 else rng.randrange(128 << 24, 224 << 24)
        entries.add(f"{value >> 24}.{(value >> 16) & 255}.{(value >> 8) & 255}.{value & 255}")
    while len(entries) < singles + ranges_v4:
        value = rng.randrange(128 << 16, 224 << 16)
        entries.add(f"{value >> 16}.{(value >> 8) & 255}.{value & 255}.0/24")
    while len(entries) < count:
        value = rng.getrandbits(48)
        entries.add(f"2001:{value >> 32:x}:{(value >> 16) & 0xffff:x}:{value & 0xffff:x}::/64")
    lines = list(entries)
    rng.shuffle(lines)
    with open(path, "w", encoding="utf-8") as out:
        out.write("#\n# bench blocklist (FireHOL-style header)\n#\n")
        for index, line in enumerate(lines):
            out.write(f"{line} ; SBL{index}\n" if index % 100 == 0 else line + "\n")


def run(argv, env):
    """(seconds, peak memory of the children in MiB, completed process) of one command."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[3:])} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, peak, done


def database_size(url, sqlite_path):
    if sqlite_path:
        return sum(p.stat().st_size for p in sqlite_path.parent.glob(sqlite_path.name + "*"))
    from sqlalchemy import create_engine, text

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as conn:
        size = conn.execute(text("SELECT pg_database_size(current_database())")).scalar()
    engine.dispose()
    return size


def admin(server_url, *statements):
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(server_url.replace("postgresql://", "postgresql+psycopg://", 1)).set(database="postgres")
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        for statement in statements:
            conn.execute(text(statement))
    engine.dispose()


def bench(label, url, sqlite_path, list_path, lines, folder):
    flask = str(Path(sys.executable).with_name("flask"))
    env = {**os.environ, "GUARDSVC_DATABASE_URL": url, "GUARDSVC_SECRET_KEY": "bench-secret-key",
           "GUARDSVC_INSTANCE_PATH": str(folder / f"instance-{label}"), "GUARDSVC_LOG_LEVEL": "ERROR"}
    run([flask, "--app", "guardsvc", "db", "upgrade"], env)
    before = database_size(url, sqlite_path)
    seconds, peak, done = run([flask, "--app", "guardsvc", "blocks", "import", str(list_path)], env)
    after = database_size(url, sqlite_path)
    again, _, repeat = run([flask, "--app", "guardsvc", "blocks", "import", str(list_path)], env)
    print(f"{label:<11} {lines:>9,} lines  import {seconds:6.1f} s  {lines / seconds:>9,.0f} rows/s  "
          f"database {before / 2**20:7.1f} -> {after / 2**20:7.1f} MiB  "
          f"({(after - before) / lines:5.0f} bytes/block)  peak memory {peak:5.0f} MiB  "
          f"same list again {again:5.1f} s (all skipped)")
    print(f"{'':<11} {done.stdout.strip().splitlines()[-1]}")
    print(f"{'':<11} {repeat.stdout.strip().splitlines()[-1]}")


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="guardsvc-bench-import-") as tmp:
        folder = Path(tmp)
        list_path = folder / "blocklist.netset"
        started = time.perf_counter()
        write_list(list_path, args.lines, args.seed)
        print(f"list: {args.lines:,} entries, {list_path.stat().st_size / 2**20:.1f} MiB "
              f"(written in {time.perf_counter() - started:.1f} s); {os.cpu_count()} CPUs")
        if not args.database_url or args.sqlite:
            sqlite_path = folder / "bench.db"
            bench("SQLite", f"sqlite:///{sqlite_path}", sqlite_path, list_path, args.lines, folder)
        if args.database_url:
            from sqlalchemy.engine import make_url

            url = make_url(args.database_url).set(database=BENCH_DATABASE).render_as_string(hide_password=False)
            admin(args.database_url, f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}"', f'CREATE DATABASE "{BENCH_DATABASE}"')
            try:
                bench("PostgreSQL", url, None, list_path, args.lines, folder)
            finally:
                admin(args.database_url, f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}"')


if __name__ == "__main__":
    main()
