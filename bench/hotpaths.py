"""Hot paths side by side: guardsvc against a minimal Flask app doing the same database work.

One run serves both under gunicorn with the same settings (2 sync workers
each by default), loads each hot path with wrk (2 threads x 16 connections),
alternating the contenders path by path so machine noise hits them alike, and
prints req/s, the ratio, p50/p99 and the non-2xx/3xx count per path.
guardsvc runs twice, with the default (the instance folder's LMDB file) and with the Redis
rate-limit storage.

    .venv/bin/python bench/hotpaths.py [--database-url postgresql://...]
        [--limits default|raised] [--duration 5] [--scale] [--blocks 1000000]

``--limits raised`` lifts the rate limits and the per-network ceiling so that
no answer is a 429 (the default settings answer 429 by design once a client
goes past them). ``--scale`` also measures check and submit with 1,000,000
stored tickets against 1,000. ``--blocks N`` compares a guarded page with N
active blocks (a tenth of them ranges) and 10,000 allow entries against none.
With --database-url (or GUARDSVC_BENCH_DATABASE_URL) every database is a
PostgreSQL database beside the one the URL names, created for the run and
dropped after it.
"""
import argparse
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent
PASSWORD = "bench-kata-sandi-2026"
EMAIL = "bench@example.com"
SUBMIT_BODY = ('{"name": "Budi Santoso", "email": "budi@example.com", "phone": "0812345678", '
               '"reason": "Saya tidak merasa melanggar. Referensi BLK-0000ABCD."}')
FORM_FIELDS = {"name": "Budi Santoso", "email": "budi@example.com", "phone": "0812345678",
               "reason": "Saya tidak merasa melanggar."}
RAISED_LIMITS = {name: "1000000 per minute" for name in
                 ("RATELIMIT_SUBMIT", "RATELIMIT_AUTH", "RATELIMIT_CHECK", "RATELIMIT_CODE",
                  "RATELIMIT_REPLY", "RATELIMIT_FORWARD_AUTH")}
RAISED_LIMITS["PENDING_PER_IP"] = "100000000"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("GUARDSVC_BENCH_DATABASE_URL"))
    parser.add_argument("--limits", choices=("default", "raised"), default="raised")
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers per server")
    parser.add_argument("--rounds", type=int, default=2, help="alternations per path")
    parser.add_argument("--tickets", type=int, default=1000, help="stored tickets")
    parser.add_argument("--scale", action="store_true", help="also measure with 1,000,000 tickets")
    parser.add_argument("--blocks", type=int, default=0, help="guarded page with N blocks vs none")
    parser.add_argument("--no-redis", action="store_true", help="skip the Redis limiter storage")
    parser.add_argument("--only", help="comma-separated path names")
    return parser.parse_args()


# ---------------------------------------------------------------- databases

class Databases:
    """Fresh databases for the run: SQLite files in a temporary folder, or PostgreSQL databases.

    On PostgreSQL each contender gets a database of its own beside the one the URL
    names (created for the run, dropped after it): a schema picked with
    ``options=-csearch_path`` would not do, as guardsvc passes its own
    ``options`` (the statement timeout), which replace the URL's.
    """

    def __init__(self, postgres_url):
        self.postgres_url = postgres_url
        self.folder = Path(tempfile.mkdtemp(prefix="guardsvc-hot-"))
        self.databases = []

    def url(self, name):
        from sqlalchemy.engine import make_url

        if not self.postgres_url:
            return f"sqlite:///{self.folder / name}.db"
        database = f"guardsvc_hot_{name}_{secrets.token_hex(3)}"
        self._ddl(f"CREATE DATABASE {database}")
        self.databases.append(database)
        return make_url(self.postgres_url).set(database=database).render_as_string(hide_password=False)

    def _ddl(self, *statements):
        from sqlalchemy import create_engine, text

        engine = create_engine(self.postgres_url.replace("postgresql://", "postgresql+psycopg://", 1),
                               isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            for statement in statements:
                conn.execute(text(statement))
        engine.dispose()

    def close(self):
        if self.databases:
            self._ddl(*(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)" for database in self.databases))
        shutil.rmtree(self.folder, ignore_errors=True)


PROXY_SECRET = "bench-proxy-secret-0123456789abcdefghij"  # what the proxy sends to forward auth (32+)


def guardsvc_env(database_url, instance, extra=None):
    return {**os.environ, "GUARDSVC_DATABASE_URL": database_url, "GUARDSVC_INSTANCE_PATH": str(instance),
            "GUARDSVC_SECRET_KEY": "bench-secret-key", "GUARDSVC_LOG_LEVEL": "WARNING",
            "GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_FORWARD_AUTH_SECRET": PROXY_SECRET,
            **(extra or {})}


def flask(env, *args):
    """Run a guardsvc CLI command; its last stdout line."""
    done = subprocess.run([str(BIN / "flask"), "--app", "guardsvc", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def prepare_guardsvc(database_url, instance):
    """Migrate, create the benchmark account and its token; return the token."""
    env = guardsvc_env(database_url, instance)
    flask(env, "db", "upgrade")
    flask(env, "users", "create", EMAIL, "--name", "Bench", "--password", PASSWORD)
    return flask(env, "tokens", "create", EMAIL, "--name", "bench")


def ticket_rows(count, start=0):
    now_text = time.strftime("%Y-%m-%d %H:%M:%S")
    for i in range(start, start + count):
        yield {"ticket_number": f"TKT-{i:08X}", "name": "Budi", "email": "budi@example.com",
               "reason": "Mohon dibuka.", "ip_address": f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}",
               "status": ("approved", "rejected")[i % 2], "created_at": now_text}


def insert_tickets(database_url, count, start=0):
    """Bulk-insert decided tickets straight into guardsvc's table."""
    from sqlalchemy import MetaData, Table, create_engine
    from sqlalchemy.dialects import postgresql, sqlite

    url = database_url.replace("postgresql://", "postgresql+psycopg://", 1)
    engine = create_engine(url)
    table = Table("unblock_tickets", MetaData(), autoload_with=engine)
    # A number the running service already drew at random is skipped, not an error.
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    insert = dialect.insert(table).on_conflict_do_nothing()
    now = __import__("datetime").datetime.utcnow()
    batch = []
    with engine.begin() as conn:
        for row in ticket_rows(count, start):
            row["created_at"] = now
            batch.append(row)
            if len(batch) == 20_000:
                conn.execute(insert, batch)
                batch = []
        if batch:
            conn.execute(insert, batch)
        if engine.dialect.name == "postgresql":
            conn.exec_driver_sql("ANALYZE unblock_tickets")
    engine.dispose()


def password_hash(database_url):
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as conn:
        value = conn.execute(text("SELECT password_hash FROM users WHERE email = :e"), {"e": EMAIL}).scalar()
    engine.dispose()
    return value


def prepare_minimal(database_url, token, tickets, guardsvc_hash):
    """Create the yardstick's tables with the same rows and the same password hash."""
    os.environ["MINIMAL_DATABASE_URL"] = database_url.replace("postgresql://", "postgresql+psycopg://", 1)
    from bench import minimal_app

    minimal_app.seed([(row["ticket_number"], row["status"]) for row in ticket_rows(tickets)],
                     EMAIL, PASSWORD, token)
    with minimal_app.app.app_context():
        user = minimal_app.db.session.scalar(minimal_app.select(minimal_app.User))
        user.password_hash = guardsvc_hash  # same Argon2 parameters on both sides
        minimal_app.db.session.commit()


# ---------------------------------------------------------------- servers

def free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, name, target, env, workers):
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [str(BIN / "gunicorn"), "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--worker-class", "sync", "--log-level", "warning", target],
            cwd=ROOT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                requests.get(self.url + "/", timeout=2)
                return
            except requests.RequestException:
                time.sleep(0.3)
        raise RuntimeError(f"{name} did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


# ---------------------------------------------------------------- load

LUA = """
local counter = 0
local paths = {%(paths)s}
local body = %(body)s
local run = "%(run)s"
local first_address = %(first_address)d
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end
request = function()
  counter = counter + 1
  local headers = {%(headers)s}
  if %(unique_device)s then
    headers["X-Device-Id"] = run .. "-" .. thread_id .. "-" .. counter
    local n = first_address + thread_id * 1048576 + counter
    headers["X-Forwarded-For"] = string.format("%%d.%%d.%%d.%%d", math.floor(n / 16777216) %% 256,
      math.floor(n / 65536) %% 256, math.floor(n / 256) %% 256, n %% 256)
  end
  return wrk.format("%(method)s", paths[(counter %% #paths) + 1], headers, body)
end
"""


def lua_string(value):
    return "nil" if value is None else '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Path_:
    """One hot path of one contender: method, paths, headers, body.

    ``unique_device``: every request comes from a new client, a device id and an
    address (``X-Forwarded-For``, which both servers trust from one proxy) of its own.
    """

    def __init__(self, method, paths, headers=None, body=None, unique_device=False):
        self.method, self.paths, self.headers = method, paths, headers or {}
        self.body, self.unique_device = body, unique_device

    def script(self, folder):
        source = LUA % {
            "paths": ", ".join(lua_string(p) for p in self.paths),
            "body": lua_string(self.body),
            "run": secrets.token_hex(4),
            # A fresh block of 2**24 addresses in 11.0.0.0-99.255.255.255 for each run.
            "first_address": random.randrange(11, 100) << 24,
            "headers": ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in self.headers.items()),
            "unique_device": "true" if self.unique_device else "false",
            "method": self.method,
        }
        path = Path(folder) / f"{secrets.token_hex(4)}.lua"
        path.write_text(source)
        return path


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def wrk(url, path_, args, folder):
    """Run wrk once; {rps, p50, p99 (ms), bad (non-2xx/3xx), total}."""
    script = path_.script(folder)
    output = subprocess.run(
        ["wrk", "-t", str(args.threads), "-c", str(args.connections), "-d", f"{args.duration}s",
         "--timeout", "30s", "--latency", "-s", str(script), url], capture_output=True, text=True, check=True).stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
              "total": int(re.search(r"(\d+) requests in", output).group(1)),
              "bad": int((re.search(r"Non-2xx or 3xx responses: (\d+)", output) or [0, 0])[1])}
    for label in ("50", "99"):
        match = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)\b", output)
        result[f"p{label}"] = float(match.group(1)) * UNITS[match.group(2)]
    return result


def hidden_fields(html):
    fields = {}
    for tag in re.findall(r"<input[^>]*type=\"hidden\"[^>]*>", html):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name:
            fields[name.group(1)] = value.group(1) if value else ""
    return fields


def csrf_meta(html):
    return re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)


def cookie_header(session):
    return "; ".join(f"{c.name}={c.value}" for c in session.cookies)


def guardsvc_paths(server, token, tickets):
    """The hot paths of a running guardsvc, with the cookies and tokens they need."""
    from urllib.parse import urlencode

    numbers = [row["ticket_number"] for row in ticket_rows(min(tickets, 200))]
    browser = requests.Session()
    form_page = browser.get(server.url + "/banding").text
    form = urlencode({**hidden_fields(form_page), **FORM_FIELDS})
    form_headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie_header(browser)}
    person = requests.Session()
    sign_in_page = person.get(server.url + "/masuk").text
    sign_in_form = urlencode({**hidden_fields(sign_in_page), "email": EMAIL, "password": PASSWORD})
    sign_in_headers = {"Content-Type": "application/x-www-form-urlencoded",
                       "Cookie": cookie_header(person), "X-Device-Id": "bench-sign-in-device"}
    signed_in = requests.Session()
    page = signed_in.get(server.url + "/masuk").text
    signed_in.post(server.url + "/masuk", data={**hidden_fields(page), "email": EMAIL, "password": PASSWORD})
    csrf = csrf_meta(signed_in.get(server.url + "/akun").text)
    json = {"Content-Type": "application/json", "Accept": "application/json"}
    return {
        "check": Path_("GET", [f"/api/guard/unblock-tickets/check/{n}" for n in numbers]),
        "submit-json": Path_("POST", ["/api/guard/unblock-tickets/submit"], json, SUBMIT_BODY, True),
        "submit-form": Path_("POST", ["/banding"], form_headers, form, True),
        "save-my-ip-bearer": Path_("POST", ["/api/security/trusted-ips/save-my-ip"],
                                   {**json, "Authorization": f"Bearer {token}"},
                                   '{"device_name": "Laptop kantor"}', True),
        "save-my-ip-cookie": Path_("POST", ["/api/security/trusted-ips/save-my-ip"],
                                   {**json, "Cookie": cookie_header(signed_in), "X-CSRFToken": csrf},
                                   '{"device_name": "Laptop kantor"}', True),
        "guarded-page": Path_("GET", ["/"], {"Cookie": cookie_header(browser)}),
        "forward-auth": Path_("GET", ["/api/guard/forward-auth"],
                              {"X-Forwarded-For": "198.51.100.9", "X-Guardsvc-Secret": PROXY_SECRET}),
        "sign-in": Path_("POST", ["/masuk"], sign_in_headers, sign_in_form),
    }


def minimal_paths(server, token, tickets, user_id=1):
    numbers = [row["ticket_number"] for row in ticket_rows(min(tickets, 200))]
    json = {"Content-Type": "application/json"}
    form = "&".join(f"{k}={requests.utils.quote(v)}" for k, v in FORM_FIELDS.items())
    form_headers = {"Content-Type": "application/x-www-form-urlencoded"}
    return {
        "check": Path_("GET", [f"/check/{n}" for n in numbers]),
        "submit-json": Path_("POST", ["/submit"], json, SUBMIT_BODY, True),
        "submit-form": Path_("POST", ["/submit-form"], form_headers, form, True),
        "save-my-ip-bearer": Path_("POST", ["/save-my-ip"], {**json, "Authorization": f"Bearer {token}"},
                                   '{"device_name": "Laptop kantor"}', True),
        "save-my-ip-cookie": Path_("POST", ["/save-my-ip-cookie"], {**json, "Cookie": f"uid={user_id}"},
                                   '{"device_name": "Laptop kantor"}', True),
        "guarded-page": Path_("GET", ["/page"]),
        "forward-auth": Path_("GET", ["/forward-auth"], {"X-Forwarded-For": "198.51.100.9"}),
        "sign-in": Path_("POST", ["/sign-in"], form_headers,
                         f"email={requests.utils.quote(EMAIL)}&password={PASSWORD}"),
    }


# ---------------------------------------------------------------- report

def ratio(a, b):
    return a / b if b else float("nan")


def merge(results):
    """Mean req/s, median p50, worst p99, summed bad over the rounds."""
    return {"rps": sum(r["rps"] for r in results) / len(results),
            "p50": sorted(r["p50"] for r in results)[len(results) // 2],
            "p99": max(r["p99"] for r in results),
            "bad": sum(r["bad"] for r in results), "total": sum(r["total"] for r in results)}


def row(name, contender, result, reference=None):
    share = f"{ratio(result['rps'], reference['rps']):6.2f}x" if reference else "      "
    print(f"{name:20}{contender:18}{result['rps']:9.0f}{share:>9}{result['p50']:9.1f}{result['p99']:9.1f}"
          f"{result['bad']:>8}/{result['total']}")


def header():
    print(f"{'path':20}{'contender':18}{'req/s':>9}{'ratio':>9}{'p50 ms':>9}{'p99 ms':>9}{'non-2xx':>8}")


def compare(contenders, names, args, folder):
    """Alternate the contenders round by round on each path; print one row each."""
    header()
    summary = {}
    for name in names:
        samples = {label: [] for label in contenders}
        for _ in range(args.rounds):
            for label, (server, paths) in contenders.items():
                if name in paths:
                    samples[label].append(wrk(server.url, paths[name], args, folder))
        merged = {label: merge(values) for label, values in samples.items() if values}
        reference = merged.get("minimal")
        for label, result in merged.items():
            row(name, label, result, None if label == "minimal" else reference)
        summary[name] = merged
    return summary


def path_exists(server, path_):
    response = requests.request(path_.method, server.url + path_.paths[0], headers=path_.headers)
    return response.status_code not in (404, 405)


def main():
    args = parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: scripts/bench installs it (apt-get install wrk)")
    dbs = Databases(args.database_url)
    folder = dbs.folder
    servers = []
    try:
        instance = folder / "instance"
        instance.mkdir()
        guardsvc_url = dbs.url("guardsvc")
        token = prepare_guardsvc(guardsvc_url, instance)
        insert_tickets(guardsvc_url, args.tickets)
        minimal_url = dbs.url("minimal")
        prepare_minimal(minimal_url, token, args.tickets, password_hash(guardsvc_url))
        limits = {f"GUARDSVC_{k}": v for k, v in RAISED_LIMITS.items()} if args.limits == "raised" else {}
        print(f"database: {'PostgreSQL' if args.database_url else 'SQLite (WAL)'}; "
              f"gunicorn {args.workers} sync workers per server; wrk {args.threads} threads x "
              f"{args.connections} connections, {args.duration} s x {args.rounds} rounds per contender; "
              f"limits {args.limits}; {args.tickets:,} stored tickets")
        minimal = Server("minimal", "bench.minimal_app:app",
                         {**os.environ, "MINIMAL_DATABASE_URL": minimal_url.replace(
                             "postgresql://", "postgresql+psycopg://", 1),
                          "MINIMAL_PENDING_PER_IP": RAISED_LIMITS["PENDING_PER_IP"]
                          if args.limits == "raised" else "5"}, args.workers)
        servers.append(minimal)
        # "": the default store, the instance folder's LMDB file (memory:// serves one worker only).
        storages = {"guardsvc/lmdb": ""}
        if not args.no_redis:
            storages["guardsvc/redis"] = "redis://127.0.0.1:6379/0"
        contenders = {"minimal": (minimal, minimal_paths(minimal, token, args.tickets))}
        for label, storage in storages.items():
            env = guardsvc_env(guardsvc_url, instance, {
                **limits, "GUARDSVC_RATELIMIT_STORAGE_URI": storage,
                "GUARDSVC_RATELIMIT_KEY_PREFIX": f"bench-{secrets.token_hex(4)}"})
            server = Server(label, "wsgi:app", env, args.workers)
            servers.append(server)
            paths = guardsvc_paths(server, token, args.tickets)
            contenders[label] = (server, {n: p for n, p in paths.items() if path_exists(server, p)})
        time.sleep(3)  # forms carry a minimum fill time
        names = list(minimal_paths(minimal, token, args.tickets))
        if args.only:
            names = [n for n in names if n in args.only.split(",")]
        compare(contenders, names, args, folder)
        if args.scale:
            scale(args, guardsvc_url, contenders["guardsvc/lmdb"], folder)
        if args.blocks:
            blocks(args, dbs, instance, contenders["guardsvc/lmdb"], limits, folder)
    finally:
        for server in servers:
            server.stop()
        dbs.close()


def scale(args, guardsvc_url, contender, folder):
    """Check and submit with 1,000,000 stored tickets against the current count."""
    server, paths = contender
    before = {name: merge([wrk(server.url, paths[name], args, folder) for _ in range(args.rounds)])
              for name in ("check", "submit-json")}
    insert_tickets(guardsvc_url, 1_000_000 - args.tickets, start=args.tickets)
    after = {name: merge([wrk(server.url, paths[name], args, folder) for _ in range(args.rounds)])
             for name in ("check", "submit-json")}
    print(f"\nflatness: {args.tickets:,} -> 1,000,000 stored tickets (guardsvc/lmdb)")
    for name in before:
        print(f"  {name:14} p50 {before[name]['p50']:.1f} -> {after[name]['p50']:.1f} ms "
              f"({ratio(after[name]['p50'], before[name]['p50']):.2f}x), req/s {before[name]['rps']:.0f} -> "
              f"{after[name]['rps']:.0f} ({ratio(before[name]['rps'], after[name]['rps']):.2f}x slower)")


def spare_loopback(app):
    """Delete the random blocks and allow entries that cover 127.0.0.1, where wrk connects from.

    The page must be measured for a client that is not blocked, through the
    whole lookup (an allow entry for it would end the lookup early).
    """
    from sqlalchemy import delete

    from guardsvc.blocks.models import AllowEntry, Block
    from guardsvc.blocks.networks import candidate_networks
    from guardsvc.extensions import db

    networks = candidate_networks("127.0.0.1")
    with app.app_context():
        removed = 0
        for model in (Block, AllowEntry):
            removed += db.session.execute(delete(model).where(model.network.in_(networks))).rowcount
        db.session.commit()
    return removed


def blocks(args, dbs, instance, contender, limits, folder):
    """The guarded page on a database with many blocks and allow entries, against none."""
    from bench import blocks_lookup

    full_url = dbs.url("blocks")
    env = guardsvc_env(full_url, instance, limits)
    app = blocks_lookup.make_app(full_url)
    seconds = blocks_lookup.fill(app, args.blocks, args.blocks // 10, 10_000, seed=7)
    spared = spare_loopback(app)
    print(f"\nguarded page: {args.blocks:,} active blocks ({args.blocks // 10:,} ranges) "
          f"(inserted in {seconds:.0f} s; {spared} random ones that covered 127.0.0.1, the load "
          f"generator's address, removed) against none")
    full = Server("guardsvc/blocks", "wsgi:app", env, args.workers)
    try:
        server, _ = contender
        empty_page = Path_("GET", ["/"])
        results = {"none": [], "full": []}
        for _ in range(args.rounds):
            results["none"].append(wrk(server.url, empty_page, args, folder))
            results["full"].append(wrk(full.url, empty_page, args, folder))
        none, full_result = merge(results["none"]), merge(results["full"])
        header()
        row("guarded-page", "no blocks", none)
        row("guarded-page", f"{args.blocks:,} blocks", full_result, none)
    finally:
        full.stop()


if __name__ == "__main__":
    main()
