"""The breached-password list: what loading 10,000,000 lines costs, and what a check costs (asserts nothing).

Generates a Pwned Passwords-shaped file (``SHA1-HEX:COUNT`` lines, in random order)
and loads it two ways, each in a process of its own so that its peak memory is its own:

- ``bloom``: what ``flask passwords load-breached`` does (guardsvc.accounts.breached_load,
  rbloom sized for a false-positive rate of 1e-7);
- ``sorted``: the exact alternative the contract allows, for comparison: the first 8
  bytes of each SHA-1, sorted in memory, written out, searched by bisection in a
  memory-mapped file.

Prints, side by side: load time, peak memory (RSS) of the loading process and how much of it
the load itself added, file size,
the cost of one check (``is_breached``: SHA-1 of the password, the look-up, and its settings
and file checks; median of 200,000) and of the look-up alone (SHA-1 and membership), and
for the filter the false positives measured on 2,000,000 passwords that are not listed.

Run: .venv/bin/python bench/breached_passwords.py [--lines 10000000] [--keep FILE]
"""
import argparse
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKS = 200_000
PROBES = 2_000_000


def generate(path, lines):
    rnd = random.Random(38)
    with open(path, "w", encoding="ascii") as out:
        batch = []
        for number in range(lines):
            batch.append(f"{hashlib.sha1(b'listed-%d' % number).hexdigest().upper()}:{rnd.randint(1, 50_000)}\n")
            if len(batch) == 100_000:
                out.write("".join(batch))
                batch = []
        out.write("".join(batch))


def rss_mib():
    """This process's resident memory now (the peak is ru_maxrss)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def child_bloom(source, target):
    """Load with the product's own code; then time checks and count false positives."""
    os.environ.update({"GUARDSVC_SECRET_KEY": "bench", "GUARDSVC_BREACHED_PASSWORDS_FILE": target,
                       "GUARDSVC_DATABASE_URL": "sqlite://", "GUARDSVC_LOG_LEVEL": "ERROR"})
    sys.path.insert(0, str(ROOT))
    from guardsvc import create_app
    from guardsvc.accounts.breached import is_breached
    from guardsvc.accounts.breached_load import load_breached

    app = create_app()
    before = rss_mib()
    started = time.perf_counter()
    report = load_breached(source, app)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with app.app_context():
        timings = []
        for number in range(CHECKS):
            password = f"pw-{number}"
            begin = time.perf_counter_ns()
            is_breached(password)
            timings.append(time.perf_counter_ns() - begin)
        found = sum(is_breached(f"listed-{number}") for number in range(0, 10_000))
        false_positives = sum(is_breached(f"not-listed-{number}") for number in range(PROBES))
        bare = _bare_lookups(target)
    timings.sort()
    return {"entries": report.entries, "seconds": seconds, "peak_mib": peak, "load_mib": peak - before,
            "bytes": os.path.getsize(target), "check_us": timings[len(timings) // 2] / 1000,
            "check_p99_us": timings[int(len(timings) * .99)] / 1000, "lookup_us": bare,
            "listed_found": found, "false_positives": false_positives}


def _bare_lookups(target):
    """The filter alone (SHA-1 and membership), without the per-call settings and file checks of is_breached."""
    from guardsvc.accounts.breached import key_of, read_filter

    bloom, _ = read_filter(target)
    timings = []
    for number in range(CHECKS):
        begin = time.perf_counter_ns()
        key_of(hashlib.sha1(f"pw-{number}".encode("utf-8")).digest()) in bloom
        timings.append(time.perf_counter_ns() - begin)
    timings.sort()
    return timings[len(timings) // 2] / 1000


def child_sorted(source, target):
    import bisect
    import mmap

    before = rss_mib()
    started = time.perf_counter()
    keys = []
    with open(source, "rb") as lines:
        while chunk := lines.readlines(1 << 22):
            keys.extend(bytes.fromhex(line[:16].decode("ascii")) for line in chunk)
    keys.sort()
    with open(target, "wb") as out:
        out.write(b"".join(keys))
    count = len(keys)
    del keys
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    class Keys:  # the file as a sequence of 8-byte keys, for bisect
        def __init__(self, mapped):
            self.mapped = mapped

        def __len__(self):
            return count

        def __getitem__(self, index):
            return self.mapped[index * 8:index * 8 + 8]

    with open(target, "rb") as file:
        mapped = Keys(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))

        def listed(password):
            key = hashlib.sha1(password.encode("utf-8")).digest()[:8]
            index = bisect.bisect_left(mapped, key)
            return index < count and mapped[index] == key

        timings = []
        for number in range(CHECKS):
            begin = time.perf_counter_ns()
            listed(f"pw-{number}")
            timings.append(time.perf_counter_ns() - begin)
        found = sum(listed(f"listed-{number}") for number in range(0, 10_000))
    timings.sort()
    median = timings[len(timings) // 2] / 1000
    return {"entries": count, "seconds": seconds, "peak_mib": peak, "load_mib": peak - before,
            "bytes": os.path.getsize(target), "check_us": median, "lookup_us": median,
            "check_p99_us": timings[int(len(timings) * .99)] / 1000, "listed_found": found, "false_positives": None}


def run_child(kind, source, target):
    done = subprocess.run([sys.executable, __file__, "--child", kind, str(source), str(target)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--keep", help="generate the list here (or reuse it when it exists)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, source, target = args.child
        print(json.dumps((child_bloom if kind == "bloom" else child_sorted)(source, target)))
        return
    folder = Path(tempfile.mkdtemp(prefix="guardsvc-breached-"))
    source = Path(args.keep) if args.keep else folder / "pwned.txt"
    if not source.exists():
        started = time.perf_counter()
        generate(source, args.lines)
        print(f"generated {args.lines:,} lines ({source.stat().st_size / 1e6:,.0f} MB) in "
              f"{time.perf_counter() - started:.0f} s")
    results = {kind: run_child(kind, source, folder / f"list.{kind}") for kind in ("bloom", "sorted")}
    print(f"\n{'':28}{'bloom (rbloom, 1e-7)':>24}{'sorted file (8-byte keys)':>28}")
    rows = (("entries", lambda r: f"{r['entries']:,}"), ("load time", lambda r: f"{r['seconds']:.1f} s"),
            ("peak memory (process)", lambda r: f"{r['peak_mib']:,.0f} MiB"),
            ("peak memory of the load", lambda r: f"{r['load_mib']:,.0f} MiB"),
            ("file size", lambda r: f"{r['bytes'] / 1e6:,.1f} MB"),
            ("check, median", lambda r: f"{r['check_us']:.1f} µs"),
            ("look-up alone, median", lambda r: f"{r['lookup_us']:.1f} µs"),
            ("check, 99th percentile", lambda r: f"{r['check_p99_us']:.1f} µs"),
            ("listed found (of 10,000)", lambda r: f"{r['listed_found']:,}"),
            (f"false positives (of {PROBES:,})",
             lambda r: "none by design" if r["false_positives"] is None else f"{r['false_positives']:,}"))
    for label, show in rows:
        print(f"{label:28}{show(results['bloom']):>24}{show(results['sorted']):>28}")
    bloom, exact = results["bloom"], results["sorted"]
    print(f"\nratios sorted/bloom: load time {exact['seconds'] / bloom['seconds']:.2f}x, "
          f"memory of the load {exact['load_mib'] / bloom['load_mib']:.1f}x, file {exact['bytes'] / bloom['bytes']:.2f}x, "
          f"look-up alone {exact['lookup_us'] / bloom['lookup_us']:.1f}x")
    for kind in ("bloom", "sorted"):
        (folder / f"list.{kind}").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
