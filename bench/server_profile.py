"""Where a hot path's time goes in a real server under load: py-spy over guardsvc's gunicorn workers.

Serves guardsvc in the default shape as ``bench/shapes.py`` does (``gunicorn wsgi:app`` with the
project's configuration: a gthread worker per core, limits in the instance folder's LMDB file,
SQLite there too, or PostgreSQL with ``--database-url``), loads one path with wrk and, meanwhile,
samples every worker with ``py-spy record --format raw --gil`` (only the thread holding the GIL:
the Python work, not the waits of threads that queue for it). The samples are folded into
two tables: the functions the workers spent their own time in, and the
share of samples in which a function (guardsvc's, or a library's entry
point) was on the stack. Idle time (gunicorn waiting for a connection) is
left out of the shares.

    .venv/bin/python bench/server_profile.py --only submit [--duration 10] [--rate 250]

py-spy needs to read the workers' memory (root, or ptrace permission).
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import hotpaths, shapes  # noqa: E402

# Frames that mean "waiting for work", not serving a request.
IDLE = ("wait (gunicorn/workers/sync.py", "accept (socket.py", "select (selectors.py", "wait (threading.py")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="submit", help="check, submit or save-my-ip")
    parser.add_argument("--duration", type=int, default=10, help="seconds of load and sampling")
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--database-url", default=os.environ.get("GUARDSVC_BENCH_DATABASE_URL"))
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--children", action="append", default=[],
                        help="also print what runs directly under this function (e.g. Flask.process_response)")
    return parser.parse_args()


def worker_pids(server):
    done = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True, text=True)
    return [int(pid) for pid in done.stdout.split()]


def sample(pid, seconds, rate, folder):
    out = Path(folder) / f"{pid}.txt"
    return out, subprocess.Popen(
        [str(hotpaths.BIN / "py-spy"), "record", "--pid", str(pid), "--duration", str(seconds),
         "--rate", str(rate), "--format", "raw", "--gil", "--nonblocking", "--output", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def children(files, name):
    """Samples per function called directly by the function ``name`` (its calls' shares)."""
    under = collections.Counter()
    for path in files:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            frames = [_short(frame) for frame in stack.split(";")]
            for i, frame in enumerate(frames[:-1]):
                if frame.startswith(name + " "):
                    under[frames[i + 1]] += int(count)
                    break
    return under


def fold(files):
    """(own, on_stack, busy samples) from py-spy's raw output (``frame;frame;... count`` lines)."""
    own, on_stack, busy = collections.Counter(), collections.Counter(), 0
    for path in files:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            frames = stack.split(";")
            if any(frames[-1].startswith(idle) for idle in IDLE):
                continue
            count = int(count)
            busy += count
            own[_short(frames[-1])] += count
            for frame in set(map(_short, frames)):
                on_stack[frame] += count
    return own, on_stack, busy


def _short(frame):
    """``function (path:line)`` -> ``function (package/module.py)``."""
    name, _, where = frame.partition(" (")
    path = where.rsplit(":", 1)[0]
    for marker in ("site-packages/", "lib/python3", f"{ROOT}/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{name} ({path})"


def report(title, counter, busy, top):
    print(f"\n{title}")
    for frame, count in counter.most_common(top):
        print(f"{100 * count / busy:6.1f}%  {frame}")


def main():
    args = parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing (apt-get install wrk)")
    dbs = hotpaths.Databases(args.database_url)
    server = None
    try:
        shape = "postgresql-default" if args.database_url else "default"
        env, token, _ = shapes.prepare(shape, dbs, dbs.folder, 1000)
        if args.database_url:
            env.pop("GUARDSVC_WORKERS", None)
            env.pop("GUARDSVC_RATELIMIT_STORAGE_URI", None)
        env["GUARDSVC_BIND"] = f"127.0.0.1:{hotpaths.free_port()}"
        server = shapes.Served("guardsvc", lambda port: [str(hotpaths.BIN / "gunicorn"), "wsgi:app"], env,
                               port=int(env["GUARDSVC_BIND"].rpartition(":")[2]))
        path_ = shapes.paths(token, 1000)[args.only]
        time.sleep(5)  # the other workers may still be booting; then a warm-up, not sampled
        hotpaths.wrk(server.url, path_, argparse.Namespace(threads=2, connections=16, duration=4), dbs.folder)
        load = argparse.Namespace(threads=2, connections=16, duration=args.duration + 2)
        samplers = [sample(pid, args.duration, args.rate, dbs.folder) for pid in worker_pids(server)]
        result = hotpaths.wrk(server.url, path_, load, dbs.folder)
        for _, process in samplers:
            process.wait()
        own, on_stack, busy = fold([out for out, _ in samplers if out.exists()])
        print(f"{args.only}: {result['rps']:.0f} req/s under py-spy, {busy} busy samples "
              f"({len(samplers)} workers, {args.rate}/s)")
        report("own time (share of busy samples)", own, busy, args.top)
        report("on the stack (share of busy samples)", on_stack, busy, args.top * 2)
        for name in args.children:
            report(f"directly under {name}", children([out for out, _ in samplers if out.exists()], name), busy,
                   args.top)
    finally:
        if server:
            server.stop()
        dbs.close()


if __name__ == "__main__":
    main()
