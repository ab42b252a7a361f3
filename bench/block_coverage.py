"""What the coverage cap (GUARDSVC_MAX_COVERAGE) costs with a million blocks.

For each database (a temporary SQLite file, and PostgreSQL when --database-url
is given: a schema of its own, dropped at the end), in-process:

1. migrate, add 20 blocks, time adding one public /32 block (``create_block``
   and its commit: the gate, the few coverage rows, the block) and adding and
   lifting one;
2. bulk-load 1,000,000 blocks in the contract's mix (bench/million_blocks.py's
   loader: it writes rows directly, so the coverage is then counted again from
   the blocks, as the migration and ``flask blocks coverage --recount`` do,
   timed), and time the same adds again;
3. time what a check that reads every block would cost per added block: every
   active IPv4 network read and their union computed (not what guardsvc does);
4. time reading a million list lines with the public addresses counted per
   line (what ``blocks import`` does now) and without (before the cap).

Prints a table, the databases side by side.

    .venv/bin/python bench/block_coverage.py [--database-url postgresql://postgres@127.0.0.1:5432/DB]
        [--blocks 1000000] [--adds 200] [--skip-sqlite]
"""
import argparse
import ipaddress
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from blocks_lookup import scratch_app  # noqa: E402
from million_blocks import load_blocks, network_of  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="PostgreSQL URL (a schema bench_coverage is made and dropped)")
    parser.add_argument("--skip-sqlite", action="store_true")
    parser.add_argument("--blocks", type=int, default=1_000_000)
    parser.add_argument("--adds", type=int, default=200)
    return parser.parse_args()


def median_ms(samples):
    return statistics.median(samples) * 1000


def public_address(offset, index):
    return str(ipaddress.IPv4Address((45 << 24) + offset + index))


def uncounted_address(offset, index):
    """An address no coverage counts (IPv6): what a block costs without the cap's work, beside it."""
    return str(ipaddress.IPv6Address((0x2001_0db8 << 96) + offset + index))


def time_adds(app, count, offset):
    """Median ms of adding one block (and committing), and of adding and lifting one: a public IPv4 address
    (counted) and an IPv6 one (not counted), interleaved."""
    from guardsvc.blocks.service import create_block, lift_block
    from guardsvc.extensions import db

    times = {kind: ([], []) for kind in (public_address, uncounted_address)}
    with app.app_context():
        for index in range(count):
            for kind, (adds, lifts) in times.items():
                started = time.perf_counter()
                create_block(network=kind(offset, index), reason="bench")
                db.session.commit()
                adds.append(time.perf_counter() - started)
                started = time.perf_counter()
                other = create_block(network=kind(offset + (1 << 20), index), reason="bench")
                db.session.commit()
                lift_block(other.reference, reason="bench")
                db.session.commit()
                lifts.append(time.perf_counter() - started)
        db.session.remove()
    return {kind.__name__: (median_ms(adds), median_ms(lifts)) for kind, (adds, lifts) in times.items()}


def move_references_out_of_the_loaders_way(app):
    """The loader numbers its blocks BLK-00000000 on: the references drawn so far move to BLK-F......."""
    from sqlalchemy import text

    from guardsvc.extensions import db

    with app.app_context():
        db.session.execute(text("UPDATE blocks SET reference = 'BLK-F' || substr(reference, 6)"))
        db.session.commit()
        db.session.remove()


def time_recount(app):
    from guardsvc.blocks import coverage
    from guardsvc.extensions import db

    with app.app_context():
        started = time.perf_counter()
        covered = coverage.recount()
        db.session.commit()
        seconds = time.perf_counter() - started
        db.session.remove()
    return seconds, covered


def time_union_of_everything(app):
    """Seconds to read every active IPv4 block and compute the union of what they cover (per added block)."""
    from sqlalchemy import select

    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db

    with app.app_context():
        started = time.perf_counter()
        networks = db.session.scalars(select(Block.network).where(
            Block.lifted_at.is_(None), Block.network.is_not(None), Block.network.not_like("%:%"))).all()
        union = list(ipaddress.collapse_addresses(ipaddress.IPv4Network(network) for network in networks))
        seconds = time.perf_counter() - started
        db.session.remove()
    return seconds, len(networks), sum(network.num_addresses for network in union)


def time_reading(app, count):
    """Seconds to read ``count`` list lines with the public addresses counted, and with that counting off."""
    from guardsvc.blocks import bulk_import, coverage

    lines = [network_of(index).replace("/32", "") + "\n" for index in range(count)]
    real = coverage.public_addresses
    times = {}
    with app.app_context():
        for name, count_public in (("counted", real), ("not counted", lambda version, first, prefixlen: 0)):
            coverage.public_addresses = count_public
            try:
                started = time.perf_counter()
                bulk_import.read_blocklist(lines, "bench")
                times[name] = time.perf_counter() - started
            finally:
                coverage.public_addresses = real
    return times


def run(name, database_url, args, table):
    with scratch_app(database_url, "bench_coverage", "bench.db") as app:
        small = time_adds(app, args.adds, 0)
        move_references_out_of_the_loaders_way(app)
        load_seconds = load_blocks(app, args.blocks)
        recount_seconds, covered = time_recount(app)
        big = time_adds(app, args.adds, 1 << 16)
        union_seconds, rows, union = time_union_of_everything(app)
        reading = time_reading(app, args.blocks)
        rows_out = {}
        for size, figures in (("20", small), (f"{args.blocks:,}", big)):
            for kind, label in (("public_address", "public IPv4, counted"), ("uncounted_address", "IPv6, not counted")):
                add, lift = figures[kind]
                rows_out[f"add one block, {label}, {size} blocks (ms)"] = f"{add:.2f}"
                rows_out[f"add + lift one, {label}, {size} blocks (ms)"] = f"{lift:.2f}"
        table[name] = {
            **rows_out,
            f"bulk load of {args.blocks:,} (s, bench loader, not counted)": f"{load_seconds:.1f}",
            f"count again from {args.blocks:,} blocks (s: migration, --recount)": f"{recount_seconds:.2f}",
            "public addresses covered (the sum)": f"{covered:,}",
            f"reading every block + union, per add (s; {rows:,} IPv4 rows)": f"{union_seconds:.2f}",
            "union of what they cover": f"{union:,}",
            f"read {args.blocks:,} list lines, public addresses counted (s)": f"{reading['counted']:.2f}",
            f"read {args.blocks:,} list lines, not counted (s)": f"{reading['not counted']:.2f}",
        }


def main():
    args = parse_args()
    table = {}
    if not args.skip_sqlite:
        run("SQLite", None, args, table)  # a new SQLite file
        print_table(table)  # now, in case the next database fails
    if args.database_url:
        run("PostgreSQL", args.database_url, args, table)
        print_table(table)


def print_table(table):
    names = list(table)
    rows = list(next(iter(table.values())))
    width = max(map(len, rows))
    print(f"{'':{width}}  " + "  ".join(f"{name:>14}" for name in names))
    for row in rows:
        print(f"{row:{width}}  " + "  ".join(f"{table[name][row]:>14}" for name in names))


if __name__ == "__main__":
    main()
