"""The raw-SQL reference: guardsvc's hot paths as the statements guardsvc sends, and nothing else.

For each hot path it runs, through the database driver itself (``sqlite3`` or psycopg, one
connection per thread, no ORM), the statements guardsvc issues for that answer, as read from
SQLAlchemy's log of a guardsvc request:

- check: the public columns of one ticket by its number;
- submit: the pending tickets on the client's address (up to the ceiling), the block lookup
  (every prefix of the address and the device, less the allow entries), the ticket's insert
  returning its row, its private link, the confirmation e-mail row, one commit;
- save-my-ip (bearer token): the token with its owner, the block lookup of a guarded door, the
  device's record, its insert returning the row, the new-device notice row, one commit;

and, where guardsvc counts a rate limit, the same counting: one transaction on an LMDB file of
its own (``REFERENCE_LIMITS=lmdb:PATH``, the embedded default) or the same one Lua round trip to
Redis (``REFERENCE_LIMITS=redis://...``). No schema, no session, no CSRF, no templates (the
e-mails are fixed texts of the size guardsvc's are), no access log. ``bench/shapes.py`` serves it
with the same gunicorn workers and threads as guardsvc and compares the two side by side.

    REFERENCE_DATABASE_URL=sqlite:////tmp/guardsvc.db gunicorn -k gthread bench.reference_app:app
"""
import hashlib
import ipaddress
import json
import os
import secrets
import sys
import threading
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from flask import Flask, Response, request

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DATABASE_URL = os.environ.get("REFERENCE_DATABASE_URL", "sqlite:///guardsvc.db")
LIMITS = os.environ.get("REFERENCE_LIMITS", "")
POSTGRES = DATABASE_URL.startswith("postgresql")
PENDING_PER_IP = int(os.environ.get("REFERENCE_PENDING_PER_IP", "5"))
app = Flask(__name__)
_local = threading.local()
# A careful raw app on SQLite: one writer of the process at a time, the lock taken at BEGIN.
_writer = threading.Lock()


def connection():
    conn = getattr(_local, "conn", None)
    if conn is None:
        if POSTGRES:
            import psycopg

            conn = psycopg.connect(DATABASE_URL.replace("postgresql+psycopg://", "postgresql://"))
        else:
            import sqlite3

            conn = sqlite3.connect(DATABASE_URL.removeprefix("sqlite:///"), check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA busy_timeout=5000")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
        _local.conn = conn
    return conn


def sql(text):
    """``?`` placeholders for sqlite3, ``%s`` for psycopg."""
    return text.replace("?", "%s") if POSTGRES else text


def now():
    value = datetime.now(timezone.utc).replace(tzinfo=None)
    return value if POSTGRES else value.isoformat(" ")


def iso(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.isoformat(timespec="microseconds") + "Z"


# ------------------------------------------------------------------ rate limits

class Limiter:
    """The same counting guardsvc does per limited request: every counter in one round trip."""

    def __init__(self, spec):
        self.store = self.redis = None
        if spec.startswith("lmdb:"):
            from guardsvc.ratelimits.lmdb_store import LmdbStorage

            self.store = LmdbStorage(f"guardsvc-lmdb://{spec[5:]}")
        elif spec.startswith("redis"):
            import redis

            from guardsvc.ratelimits.limits import _COUNT_ON_REDIS

            self.redis = redis.Redis.from_url(spec).register_script(_COUNT_ON_REDIS)
        self.prefix = f"reference-{secrets.token_hex(4)}"

    def count(self, scope, windows):
        client = request.remote_addr
        counters = [(f"LIMITER/{self.prefix}/{scope}/{client}/1000000/1/{seconds}", seconds) for seconds in windows]
        if self.store is not None:
            return self.store.count_many(counters)
        if self.redis is not None:
            return self.redis(keys=[key for key, _ in counters], args=[seconds for _, seconds in counters])
        return None


limiter = Limiter(LIMITS)


# ------------------------------------------------------------------ the statements

@lru_cache(maxsize=4096)
def prefixes(ip):
    address = ipaddress.ip_address(ip)
    return tuple(str(ipaddress.ip_network(f"{address}/{length}", strict=False))
                 for length in range(address.max_prefixlen, -1, -1))


def _block_lookup(count):
    marks = ", ".join("?" * count)
    active = "blocks.lifted_at IS NULL AND (blocks.expires_at IS NULL OR blocks.expires_at > ?) AND " \
             "(blocks.local_ip IS NULL OR blocks.local_ip = ? OR ? = 1)"
    allowed = "allow_entries.removed_at IS NULL AND (allow_entries.expires_at IS NULL OR " \
              "allow_entries.expires_at > ?) AND (allow_entries.made_by = ? OR " \
              "allow_entries.created_at >= matching_blocks.created_at)"
    return sql(
        "SELECT matching_blocks.id, matching_blocks.created_at FROM (SELECT blocks.id AS id, blocks.created_at "
        f"AS created_at FROM blocks WHERE blocks.network IN ({marks}) AND {active} UNION ALL SELECT blocks.id AS id, "
        f"blocks.created_at AS created_at FROM blocks WHERE blocks.device_id = ? AND {active}) AS matching_blocks "
        "WHERE NOT (EXISTS (SELECT allow_entries.id FROM allow_entries WHERE allow_entries.network IN "
        f"({marks}) AND (allow_entries.paired_device_id IS NULL OR allow_entries.paired_device_id = ?) AND "
        f"{allowed})) AND NOT (EXISTS (SELECT allow_entries.id FROM allow_entries WHERE allow_entries.device_id = ? "
        f"AND {allowed}))")


BLOCK_LOOKUP = {33: _block_lookup(33), 129: _block_lookup(129)}


def block_id(cur, ip, device_id):
    networks = prefixes(ip)
    moment = now()
    row = cur.execute(BLOCK_LOOKUP[len(networks)],
                      (*networks, moment, None, 1, device_id, moment, None, 1,
                       *networks, device_id, moment, "approval", device_id, moment, "approval")).fetchone()
    return row[0] if row else None


TICKET_COLUMNS = ("id, ticket_number, name, email, phone, reason, ip_address, device_id, device_issued, local_ip, "
                  "user_agent, return_path, site, language, block_id, status, created_at, resolved_at, "
                  "resolved_by_id, admin_notes, email_verified_at, claimed_by_id, claimed_at, access_opened, "
                  "personal_data_erased_at")
CHECK = sql("SELECT unblock_tickets.ticket_number, unblock_tickets.status, unblock_tickets.created_at, "
            "unblock_tickets.resolved_at, unblock_tickets.admin_notes, unblock_tickets.access_opened, "
            "unblock_tickets.return_path FROM unblock_tickets WHERE unblock_tickets.ticket_number = ?")
ON_ADDRESS = sql("SELECT count(*) AS count_1 FROM (SELECT unblock_tickets.id AS id FROM unblock_tickets WHERE "
                 "unblock_tickets.ip_address = ? AND status = 'pending' LIMIT ? OFFSET ?) AS anon_1")
INSERT_TICKET = sql("INSERT INTO unblock_tickets (ticket_number, name, email, phone, reason, ip_address, device_id, "
                    "device_issued, local_ip, user_agent, return_path, site, language, block_id, status, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING "
                    + TICKET_COLUMNS)
INSERT_SECRET = sql("INSERT INTO ticket_secrets (ticket_id, secret_hash, created_at) VALUES (?, ?, ?)")
INSERT_MAIL = sql("INSERT INTO mail_outbox (kind, recipient, subject, body_text, body_html, status, attempts, "
                  "next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")
TOKEN = sql("SELECT users.id, users.email, users.name, users.password_hash, users.role, users.is_active, "
            "users.totp_secret, users.totp_enabled_at, users.failures_cleared_at, users.totp_last_step, "
            "users.created_at, users.notify_new_appeals, users.last_appeal_digest_at, users.language, api_tokens.id "
            "AS token_id, api_tokens.last_used_at FROM users JOIN api_tokens ON api_tokens.user_id = users.id WHERE "
            "api_tokens.token_hash = ? AND api_tokens.revoked_at IS NULL")
TRUSTED_COLUMNS = ("id, user_id, ip_address, local_ip, device_id, device_name, operating_system, is_active, "
                   "verified_at, created_at, revoked_at, secret_hash, device_issued")
FIND_TRUSTED = sql("SELECT " + ", ".join(f"trusted_ips.{c}" for c in TRUSTED_COLUMNS.split(", ")) +
                   " FROM trusted_ips WHERE trusted_ips.user_id = ? AND trusted_ips.ip_address = ? AND "
                   "coalesce(trusted_ips.device_id, ?) = ?")
INSERT_TRUSTED = sql("INSERT INTO trusted_ips (user_id, ip_address, local_ip, device_id, device_name, "
                     "operating_system, is_active, verified_at, created_at, secret_hash, device_issued) VALUES "
                     "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING " + TRUSTED_COLUMNS)
# The e-mails as guardsvc stores them: a plain text and an HTML body of about the same sizes.
MAIL_TEXT = "Halo,\n\nPermohonan pembukaan blokir Anda sudah kami terima.\n\nNomor tiket : {number}\n" + "." * 900
MAIL_HTML = "<!doctype html><html lang=\"id\"><body><p>Nomor tiket: {number}</p>" + "<p>.</p>" * 500 + "</body></html>"


class writing:
    """The request's writes: on SQLite one writer of the process at a time, its lock taken at BEGIN.

    The reads before the first write run outside it, as guardsvc's do (and as sqlite3 runs them);
    on PostgreSQL the driver's transaction holds the whole request, as guardsvc's session does.
    """

    def __init__(self, conn):
        self.conn = conn

    def __enter__(self):
        if not POSTGRES:
            _writer.acquire()
            self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, error, trace):
        if not POSTGRES:
            if self.conn.in_transaction:
                self.conn.rollback()  # left without its commit
            _writer.release()


class request_transaction:
    """Whatever the request left open is rolled back at its end (a refusal, an error)."""

    def __init__(self, conn):
        self.conn = conn

    def __enter__(self):
        return self.conn

    def __exit__(self, kind, error, trace):
        if POSTGRES or self.conn.in_transaction:
            self.conn.rollback()


def answer(status, body):
    return Response(json.dumps(body), status=status, mimetype="application/json")


@app.get("/api/guard/unblock-tickets/check/<number>")
def check(number):
    limiter.count("ticket-check", (60,))
    row = connection().execute(CHECK, (number.strip().upper(),)).fetchone()
    if row is None:
        return answer(404, {"success": False, "message": "Nomor tiket tidak ditemukan."})
    return answer(200, {"success": True, "data": {
        "ticket_number": row[0], "status": row[1], "created_at": iso(row[2]), "resolved_at": iso(row[3]),
        "admin_notes": row[4]}})


@app.post("/api/guard/unblock-tickets/submit")
def submit():
    limiter.count("appeal-submit", (60, 86400))
    body = request.get_json()
    ip, device_id = request.remote_addr, request.headers.get("X-Device-Id")
    conn = connection()
    with request_transaction(conn):
        cur = conn.cursor()
        if cur.execute(ON_ADDRESS, (ip, PENDING_PER_IP, 0)).fetchone()[0] >= PENDING_PER_IP:
            return answer(429, {"success": False, "message": "Terlalu banyak permohonan dari jaringan ini."})
        blocked = block_id(cur, ip, device_id)
        number = "TKT-" + secrets.token_hex(4).upper()
        created = now()
        with writing(conn):
            row = cur.execute(INSERT_TICKET, (number, body["name"], body["email"], body.get("phone"),
                                              body["reason"], ip, device_id, False, None,
                                              request.headers.get("User-Agent"), None, None, "id", blocked,
                                              "pending", created)).fetchone()
            if row is None:
                return answer(429, {"success": False, "message": "Sudah ada tiket."})
            cur.execute(INSERT_SECRET, (row[0], hashlib.sha256(secrets.token_bytes(32)).hexdigest(), created))
            cur.execute(INSERT_MAIL, ("appeal_received", row[3], f"Permohonan {number} diterima",
                                      MAIL_TEXT.format(number=number), MAIL_HTML.format(number=number), "pending",
                                      0, created, created)).fetchone()
            conn.commit()
    return answer(201, {"success": True, "message": "Permohonan pembukaan blokir berhasil diajukan.",
                        "ticket_number": number, "data": {
                            "id": row[0], "ticket_number": row[1], "name": row[2], "email": row[3],
                            "ip_address": row[6], "status": row[15], "created_at": iso(row[16])}})


@app.post("/api/security/trusted-ips/save-my-ip")
def save_my_ip():
    token = request.headers.get("Authorization", "").removeprefix("Bearer ")
    ip, device_id = request.remote_addr, request.headers.get("X-Device-Id")
    conn = connection()
    with request_transaction(conn):
        cur = conn.cursor()
        owner = cur.execute(TOKEN, (hashlib.sha256(token.encode()).hexdigest(),)).fetchone()
        if owner is None:
            return answer(401, {"success": False, "message": "Token tidak sah."})
        if block_id(cur, ip, device_id) is not None:
            return answer(403, {"success": False, "blocked": True})
        name = (request.get_json() or {}).get("device_name") or "Perangkat tanpa nama"
        agent = request.headers.get("User-Agent")
        row = cur.execute(FIND_TRUSTED, (owner[0], ip, "", device_id or "")).fetchone()
        created = row is None
        if created:
            moment = now()
            with writing(conn):
                row = cur.execute(INSERT_TRUSTED, (owner[0], ip, None, device_id, name, agent, True, moment,
                                                   moment, None, False)).fetchone()
                cur.execute(INSERT_MAIL, ("notice_device_trusted", owner[1], "Pemberitahuan keamanan: perangkat "
                                          "tepercaya baru", MAIL_TEXT.format(number=ip), MAIL_HTML.format(number=ip),
                                          "pending", 0, moment, moment)).fetchone()
                conn.commit()
    return answer(201 if created else 200, {
        "success": True, "message": f"IP {ip} berhasil ditambahkan sebagai IP terpercaya Anda.",
        "data": {"id": row[0], "user_id": row[1], "ip_address": row[2], "local_ip": row[3], "device_id": row[4],
                 "device_name": row[5], "operating_system": row[6], "is_active": bool(row[7]),
                 "verified_at": iso(row[8])}})


@app.get("/healthz")
def healthz():
    return answer(200, {"success": True})


# X-Forwarded-For from one proxy, as guardsvc is set (GUARDSVC_PROXY_COUNT=1).
from werkzeug.middleware.proxy_fix import ProxyFix  # noqa: E402

app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1)
