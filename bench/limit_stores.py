"""What counting a rate limit costs in each store: memory, the machine's LMDB file, Redis.

Each store counts the way a request counts (``guardsvc.ratelimits.limits.Counters.count``: every
counter of the request in one call; a status check has one counter, a submission two), first in
one process, then in as many processes as the machine has cores at once, which also checks that
the shared stores count exactly (memory cannot: each process counts for itself).

    .venv/bin/python bench/limit_stores.py [--counts 20000] [--redis redis://127.0.0.1:6379/0]
"""
import argparse
import multiprocessing
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, default=20000, help="counts per process and store")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


def _counters(uri):
    from guardsvc.ratelimits.limits import Counters

    options = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5} if uri.startswith("redis") else {}
    return Counters({"RATELIMIT_ENABLED": True, "RATELIMIT_KEY_PREFIX": f"bench-{secrets.token_hex(4)}",
                     "RATELIMIT_STORAGE_URI": uri, "RATELIMIT_STORAGE_OPTIONS": options})


def _run(uri, counts, windows, shared_key, out):
    """Count ``counts`` times (a new client each time, and one key every process shares); µs per count."""
    counters = _counters(uri)
    store = counters.primary
    started = time.perf_counter()
    for n in range(counts):
        keys = [(f"LIMITER/b/{os.getpid()}-{n}/{seconds}", seconds) for seconds in windows[1:]]
        counters.count(store, [(shared_key, windows[0])] + keys)
    out.put((time.perf_counter() - started) / counts * 1e6)


def measure(uri, counts, windows, processes):
    """(median µs per count over the processes, the shared key's final count)."""
    shared_key = f"LIMITER/b/shared-{secrets.token_hex(4)}/{windows[0]}"
    out = multiprocessing.get_context("fork").Queue()
    workers = [multiprocessing.get_context("fork").Process(target=_run, args=(uri, counts, windows, shared_key, out))
               for _ in range(processes)]
    for worker in workers:
        worker.start()
    micros = [out.get() for _ in workers]
    for worker in workers:
        worker.join()
    counted = None
    if not uri.startswith("guardsvc-memory"):
        store = _counters(uri).primary
        counted = store.get(shared_key)
        if hasattr(store, "close"):
            store.close()  # an LMDB environment must not be open in a process that forks
    return statistics.median(micros), counted


def main():
    args = parse_args()
    from guardsvc.config import machine_cores

    folder = Path(tempfile.mkdtemp(prefix="guardsvc-limits-"))
    stores = {"memory (one process only)": "guardsvc-memory://",
              "LMDB file (the default)": f"guardsvc-lmdb://{folder}/ratelimits.lmdb",
              "Redis (one round trip)": args.redis}
    cores = machine_cores()
    print(f"{args.counts:,} counts per process; {cores} cores; load average {os.getloadavg()[0]:.1f}")
    print(f"{'store':28}{'counters':>9}{'1 process µs':>14}{f'{cores} processes µs':>17}{'shared count':>14}")
    for label, uri in stores.items():
        for windows in ((60,), (60, 86400)):
            single = [measure(uri, args.counts, windows, 1)[0] for _ in range(args.rounds)]
            several, counted = measure(uri, args.counts, windows, cores)
            expected = args.counts * cores
            exact = "-" if counted is None else f"{counted}/{expected}{'' if counted == expected else ' WRONG'}"
            print(f"{label:28}{len(windows):>9}{statistics.median(single):14.1f}{several:17.1f}{exact:>14}",
                  flush=True)


if __name__ == "__main__":
    main()
