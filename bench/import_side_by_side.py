"""``flask blocks import`` of this checkout beside another revision's, in one run: the ratio of their times.

On a busy shared machine an import's wall time follows the load more than the
code (bench/blocks_import.py measured the same million lines at 28 s and at
250 s). Here both revisions import the same list on fresh databases of their
own, one after the other, alternating which goes first, --rounds times; the
medians and their ratio are what to compare.

    git archive main | (mkdir -p /tmp/guardsvc-main && tar -x -C /tmp/guardsvc-main)
    .venv/bin/python bench/import_side_by_side.py --baseline /tmp/guardsvc-main [--lines 200000]
        [--rounds 3] [--database-url postgresql://postgres@127.0.0.1:5432/DB]

The baseline runs with this checkout's virtualenv, its own code first on the path.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from blocks_import import admin, write_list  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="a checkout of the revision to compare with")
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", help="PostgreSQL too (databases guardsvc_bench_side_* are made)")
    parser.add_argument("--seed", type=int, default=37)
    return parser.parse_args()


def import_once(checkout, url, list_path, instance):
    """Seconds of one import by ``checkout`` on a freshly migrated database at ``url``."""
    flask = str(Path(sys.executable).with_name("flask"))
    env = {**os.environ, "GUARDSVC_DATABASE_URL": url, "GUARDSVC_SECRET_KEY": "bench-secret-key",
           "GUARDSVC_INSTANCE_PATH": str(instance), "GUARDSVC_LOG_LEVEL": "ERROR", "PYTHONPATH": str(checkout)}
    for argv in (["db", "upgrade"], ["blocks", "import", str(list_path)]):
        started = time.perf_counter()
        done = subprocess.run([flask, "--app", "guardsvc", *argv], env=env, cwd=checkout, capture_output=True,
                              text=True)
        if done.returncode != 0:
            raise SystemExit(f"{checkout}: {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def main():
    args = parse_args()
    checkouts = {"baseline": Path(args.baseline).resolve(), "this": ROOT}
    with tempfile.TemporaryDirectory(prefix="guardsvc-bench-side-") as tmp:
        folder = Path(tmp)
        list_path = folder / "blocklist.netset"
        write_list(list_path, args.lines, args.seed)
        databases = ["SQLite"] + (["PostgreSQL"] if args.database_url else [])
        times = {(name, database): [] for name in checkouts for database in databases}
        for round_number in range(args.rounds):
            order = list(checkouts) if round_number % 2 == 0 else list(reversed(checkouts))
            for database in databases:
                for name in order:
                    instance = folder / f"instance-{name}-{database}-{round_number}"
                    instance.mkdir()
                    if database == "SQLite":
                        url = f"sqlite:///{folder / f'{name}-{round_number}.db'}"
                    else:
                        from sqlalchemy.engine import make_url

                        dbname = f"guardsvc_bench_side_{name}"
                        admin(args.database_url, f'DROP DATABASE IF EXISTS "{dbname}"', f'CREATE DATABASE "{dbname}"')
                        url = make_url(args.database_url).set(database=dbname).render_as_string(hide_password=False)
                    try:
                        times[(name, database)].append(import_once(checkouts[name], url, list_path, instance))
                    finally:
                        if database != "SQLite":
                            admin(args.database_url, f'DROP DATABASE IF EXISTS "{dbname}"')
        print(f"{args.lines:,} lines, {args.rounds} rounds, alternating; median seconds of the import command")
        for database in databases:
            base, this = (statistics.median(times[(name, database)]) for name in ("baseline", "this"))
            runs = ", ".join(f"{value:.1f}" for value in times[("this", database)])
            base_runs = ", ".join(f"{value:.1f}" for value in times[("baseline", database)])
            print(f"{database:<11} baseline {base:6.1f} s ({base_runs})  this {this:6.1f} s ({runs})  "
                  f"ratio {this / base:.2f}")


if __name__ == "__main__":
    main()
