"""The yardstick: a minimal Flask + Flask-SQLAlchemy app doing each hot path's database work.

It has no guard, no limiter, no sessions of its own, no CSRF, no security
headers and no schemas: one route per hot path, the same indexed lookups and
inserts guardsvc needs for that answer, and nothing else. A submission runs
what guardsvc's does: the client's pending ticket, the pending tickets on its
address (up to the ceiling), the block lookup for address and device, the
ticket's insert and a confirmation e-mail row with a rendered sentence, in one
commit. A save-my-ip runs the block lookup of a guarded door, the token, the
device's record, its insert and, for a new device, a notice e-mail row. Like
guardsvc behind one proxy, it takes the client address from X-Forwarded-For.
``bench/hotpaths.py`` serves it with the same gunicorn settings as guardsvc
and compares the two side by side in one run.

    MINIMAL_DATABASE_URL=sqlite:////tmp/minimal.db gunicorn bench.minimal_app:app
"""
import hashlib
import ipaddress
import os
import secrets
from datetime import datetime, timezone
from functools import lru_cache

from argon2 import PasswordHasher
from flask import Flask, jsonify, make_response, redirect, request
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import Index, bindparam, event, func, or_, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from werkzeug.middleware.proxy_fix import ProxyFix

app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = os.environ.get("MINIMAL_DATABASE_URL", "sqlite:///minimal.db")
app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1)
db = SQLAlchemy(app)
PENDING_PER_IP = int(os.environ.get("MINIMAL_PENDING_PER_IP", "5"))
BASE_URL = "https://guard.example.com"
hasher = PasswordHasher()


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, _record):
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


def utcnow():
    return datetime.now(timezone.utc).replace(tzinfo=None)


def iso(value):
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if value else None


class Ticket(db.Model):
    __tablename__ = "tickets"
    id = db.Column(db.Integer, primary_key=True)
    ticket_number = db.Column(db.String(12), unique=True, nullable=False)
    name = db.Column(db.String(100), nullable=False)
    email = db.Column(db.String(150), nullable=False)
    phone = db.Column(db.String(30))
    reason = db.Column(db.Text, nullable=False)
    ip_address = db.Column(db.String(45), nullable=False)
    device_id = db.Column(db.String(64))
    status = db.Column(db.String(10), nullable=False, default="pending")
    created_at = db.Column(db.DateTime, nullable=False, default=utcnow)
    resolved_at = db.Column(db.DateTime)
    admin_notes = db.Column(db.Text)
    block_id = db.Column(db.Integer)
    __table_args__ = (
        Index("uq_pending_device", "device_id", unique=True,
              sqlite_where=text("status = 'pending' AND device_id IS NOT NULL"),
              postgresql_where=text("status = 'pending' AND device_id IS NOT NULL")),
        Index("ix_pending_ip", "ip_address", sqlite_where=text("status = 'pending'"),
              postgresql_where=text("status = 'pending'")),
    )


class Mail(db.Model):
    __tablename__ = "mails"
    id = db.Column(db.Integer, primary_key=True)
    recipient = db.Column(db.String(150), nullable=False)
    subject = db.Column(db.String(200), nullable=False)
    body_text = db.Column(db.Text, nullable=False)
    status = db.Column(db.String(10), nullable=False, default="pending")
    created_at = db.Column(db.DateTime, nullable=False, default=utcnow)


class User(db.Model):
    __tablename__ = "users"
    id = db.Column(db.Integer, primary_key=True)
    email = db.Column(db.String(150), unique=True, nullable=False)
    password_hash = db.Column(db.String(255), nullable=False)


class Token(db.Model):
    __tablename__ = "tokens"
    id = db.Column(db.Integer, primary_key=True)
    user_id = db.Column(db.Integer, db.ForeignKey("users.id"), nullable=False)
    token_hash = db.Column(db.String(64), unique=True, nullable=False)


class TrustedIp(db.Model):
    __tablename__ = "trusted_ips"
    id = db.Column(db.Integer, primary_key=True)
    user_id = db.Column(db.Integer, db.ForeignKey("users.id"), nullable=False)
    ip_address = db.Column(db.String(45), nullable=False)
    device_id = db.Column(db.String(64))
    device_name = db.Column(db.String(100))
    operating_system = db.Column(db.String(255))
    is_active = db.Column(db.Boolean, nullable=False, default=True)
    verified_at = db.Column(db.DateTime, nullable=False, default=utcnow)
    __table_args__ = (Index("uq_trusted", "user_id", "ip_address", func.coalesce(device_id, ""),
                            unique=True),)


class Block(db.Model):
    __tablename__ = "blocks"
    id = db.Column(db.Integer, primary_key=True)
    network = db.Column(db.String(49))
    device_id = db.Column(db.String(64))
    lifted_at = db.Column(db.DateTime)
    __table_args__ = (Index("ix_active_network", "network",
                            sqlite_where=text("lifted_at IS NULL"),
                            postgresql_where=text("lifted_at IS NULL")),
                      Index("ix_active_device", "device_id",
                            sqlite_where=text("lifted_at IS NULL"),
                            postgresql_where=text("lifted_at IS NULL")))


class SignIn(db.Model):
    __tablename__ = "sign_ins"
    id = db.Column(db.Integer, primary_key=True)
    user_id = db.Column(db.Integer)
    ip_address = db.Column(db.String(45))
    succeeded = db.Column(db.Boolean, nullable=False)
    created_at = db.Column(db.DateTime, nullable=False, default=utcnow)


@lru_cache(maxsize=256)
def prefixes(ip):
    """Every network that contains ``ip``, as text: one per prefix length."""
    address = ipaddress.ip_address(ip)
    if address.version == 4:
        value = int(address)
        return tuple(f"{v >> 24}.{v >> 16 & 255}.{v >> 8 & 255}.{v & 255}/{32 - shift}"
                     for shift in range(33) for v in (value >> shift << shift,))
    return tuple(str(ipaddress.ip_network(f"{address}/{length}", strict=False))
                 for length in range(address.max_prefixlen, -1, -1))


_ON_NETWORK = Block.network.in_(bindparam("networks", expanding=True))
_ACTIVE_BLOCK = select(Block.id).where(_ON_NETWORK, Block.lifted_at.is_(None)).limit(1)
_ACTIVE_BLOCK_OR_DEVICE = select(Block.id).where(
    or_(_ON_NETWORK, Block.device_id == bindparam("device_id")), Block.lifted_at.is_(None)).limit(1)


def block_id(ip, device_id=None):
    """The active block on this address (any containing network) or device, in one indexed read."""
    if device_id:
        return db.session.scalar(_ACTIVE_BLOCK_OR_DEVICE, {"networks": prefixes(ip), "device_id": device_id})
    return db.session.scalar(_ACTIVE_BLOCK, {"networks": prefixes(ip)})


def blocked(ip):
    return block_id(ip) is not None


def new_ticket(body):
    """The submission's statements; the new ticket's public fields, or the reason for a 429."""
    ip, device_id = request.remote_addr, request.headers.get("X-Device-Id")
    own = db.session.scalar(select(Ticket.ticket_number).where(
        Ticket.status == "pending", Ticket.device_id == device_id).limit(1))
    if own is not None:
        return None, "Sudah ada tiket."
    on_address = db.session.scalar(select(func.count()).select_from(select(Ticket.id).where(
        Ticket.ip_address == ip, Ticket.status == "pending").limit(PENDING_PER_IP).subquery()))
    if on_address >= PENDING_PER_IP:
        return None, "Terlalu banyak tiket dari jaringan ini."
    ticket = Ticket(ticket_number="TKT-" + secrets.token_hex(4).upper(), name=body["name"],
                    email=body["email"], phone=body.get("phone"), reason=body["reason"],
                    ip_address=ip, device_id=device_id, block_id=block_id(ip, device_id),
                    created_at=utcnow())
    db.session.add(ticket)
    db.session.add(Mail(recipient=ticket.email, subject=f"Permohonan {ticket.ticket_number} diterima",
                        body_text=f"Permohonan {ticket.ticket_number} diterima pada "
                                  f"{ticket.created_at:%d-%m-%Y %H:%M} UTC. Tautan pribadi: "
                                  f"{BASE_URL}/banding/tiket/{secrets.token_urlsafe(24)}"))
    try:
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        return None, "Sudah ada tiket."
    data = {"id": ticket.id, "ticket_number": ticket.ticket_number, "ip_address": ticket.ip_address,
            "name": ticket.name, "email": ticket.email, "status": ticket.status,
            "created_at": iso(ticket.created_at)}
    db.session.commit()
    return data, None


@app.get("/check/<number>")
def check(number):
    ticket = db.session.scalar(select(Ticket).where(Ticket.ticket_number == number.strip().upper()))
    if ticket is None:
        return jsonify(success=False, message="Nomor tiket tidak ditemukan."), 404
    return jsonify(success=True, data={
        "ticket_number": ticket.ticket_number, "status": ticket.status,
        "created_at": iso(ticket.created_at), "resolved_at": iso(ticket.resolved_at),
        "admin_notes": ticket.admin_notes})


@app.post("/submit")
def submit():
    data, refusal = new_ticket(request.get_json())
    if data is None:
        return jsonify(success=False, message=refusal), 429
    return jsonify(success=True, ticket_number=data["ticket_number"], data=data), 201


@app.post("/submit-form")
def submit_form():
    data, refusal = new_ticket(request.form)
    if data is None:
        return refusal, 429
    return redirect(f"/submitted/{data['ticket_number']}", 303)


def save_trusted(user_id):
    ip = request.remote_addr
    device_id = request.headers.get("X-Device-Id")
    if block_id(ip, device_id) is not None:  # a guarded door
        return jsonify(success=False, blocked=True), 403
    record = db.session.scalar(select(TrustedIp).where(
        TrustedIp.user_id == user_id, TrustedIp.ip_address == ip,
        func.coalesce(TrustedIp.device_id, "") == (device_id or "")))
    created = record is None
    if created:
        record = TrustedIp(user_id=user_id, ip_address=ip, device_id=device_id)
        db.session.add(record)
    record.device_name = (request.get_json() or {}).get("device_name") or "Perangkat"
    record.operating_system = request.headers.get("User-Agent")
    record.verified_at = utcnow()
    record.is_active = True
    if created:
        db.session.add(Mail(recipient="owner@example.com", subject="Perangkat baru dipercaya",
                            body_text=f"{record.device_name} ({ip}) dipercaya pada "
                                      f"{record.verified_at:%d-%m-%Y %H:%M} UTC."))
    db.session.flush()
    data = {"id": record.id, "user_id": record.user_id, "ip_address": record.ip_address,
            "local_ip": None, "device_id": record.device_id, "device_name": record.device_name,
            "operating_system": record.operating_system, "is_active": record.is_active,
            "verified_at": iso(record.verified_at)}
    db.session.commit()
    return jsonify(success=True, message=f"IP {ip} tersimpan.", data=data), 201 if created else 200


@app.post("/save-my-ip")
def save_my_ip():
    token = request.headers.get("Authorization", "").removeprefix("Bearer ")
    user_id = db.session.scalar(select(Token.user_id).where(
        Token.token_hash == hashlib.sha256(token.encode()).hexdigest()))
    if user_id is None:
        return jsonify(success=False), 401
    return save_trusted(user_id)


@app.post("/save-my-ip-cookie")
def save_my_ip_cookie():
    user_id = db.session.scalar(select(User.id).where(User.id == int(request.cookies.get("uid", 0))))
    if user_id is None:
        return jsonify(success=False), 401
    return save_trusted(user_id)


@app.get("/page")
def page():
    if blocked(request.remote_addr):
        return "Diblokir", 403
    return "<!doctype html><html lang=id><title>Beranda</title><h1>Beranda</h1></html>"


@app.get("/forward-auth")
def forward_auth():
    if blocked(request.headers.get("X-Forwarded-For", request.remote_addr)):
        return jsonify(success=False, blocked=True), 403
    return "", 204


@app.post("/sign-in")
def sign_in():
    user = db.session.scalar(select(User).where(User.email == request.form["email"]))
    ok = user is not None and _verify(user.password_hash, request.form["password"])
    db.session.add(SignIn(user_id=user.id if user else None, ip_address=request.remote_addr,
                          succeeded=ok))
    db.session.commit()
    if not ok:
        return "Salah", 401
    response = make_response(redirect("/account", 303))
    response.set_cookie("uid", str(user.id), httponly=True)
    return response


def _verify(password_hash, password):
    try:
        return hasher.verify(password_hash, password)
    except Exception:
        return False


def seed(tickets, user_email, password, token):
    """Create the tables and the rows the benchmark reads."""
    with app.app_context():
        db.create_all()
        user = User(email=user_email, password_hash=hasher.hash(password))
        db.session.add(user)
        db.session.flush()
        db.session.add(Token(user_id=user.id, token_hash=hashlib.sha256(token.encode()).hexdigest()))
        db.session.commit()
        now = utcnow()
        rows = [{"ticket_number": number, "name": "Budi", "email": "budi@example.com",
                 "reason": "Mohon dibuka.", "ip_address": "198.51.100.1", "status": status,
                 "created_at": now} for number, status in tickets]
        for start in range(0, len(rows), 20_000):
            db.session.execute(Ticket.__table__.insert(), rows[start:start + 20_000])
        db.session.commit()
        return user.id
