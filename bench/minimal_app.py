"""The yardstick: a minimal Flask + Flask-SQLAlchemy app doing each hot path's database work.

It has no guard, no limiter, no sessions of its own, no CSRF, no security
headers and no schemas: one route per hot path, the same indexed lookups and
inserts guardsvc needs for that answer, and nothing else. ``bench/hotpaths.py``
serves it with the same gunicorn settings as guardsvc and compares the two
side by side in one run.

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
from sqlalchemy import Index, event, func, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = os.environ.get("MINIMAL_DATABASE_URL", "sqlite:///minimal.db")
db = SQLAlchemy(app)
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
    __table_args__ = (
        Index("uq_pending_device", "device_id", unique=True,
              sqlite_where=text("status = 'pending' AND device_id IS NOT NULL"),
              postgresql_where=text("status = 'pending' AND device_id IS NOT NULL")),
    )


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
                            postgresql_where=text("lifted_at IS NULL")),)


class SignIn(db.Model):
    __tablename__ = "sign_ins"
    id = db.Column(db.Integer, primary_key=True)
    user_id = db.Column(db.Integer)
    ip_address = db.Column(db.String(45))
    succeeded = db.Column(db.Boolean, nullable=False)
    created_at = db.Column(db.DateTime, nullable=False, default=utcnow)


@lru_cache(maxsize=256)
def prefixes(ip):
    address = ipaddress.ip_address(ip)
    return tuple(str(ipaddress.ip_network(f"{address}/{length}", strict=False))
                 for length in range(address.max_prefixlen, -1, -1))


def blocked(ip):
    return db.session.scalar(select(Block.id).where(
        Block.network.in_(prefixes(ip)), Block.lifted_at.is_(None)).limit(1)) is not None


def new_ticket(body):
    ticket = Ticket(ticket_number="TKT-" + secrets.token_hex(4).upper(), name=body["name"],
                    email=body["email"], phone=body.get("phone"), reason=body["reason"],
                    ip_address=request.remote_addr, device_id=request.headers.get("X-Device-Id"))
    db.session.add(ticket)
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        return None
    return ticket


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
    ticket = new_ticket(request.get_json())
    if ticket is None:
        return jsonify(success=False, message="Sudah ada tiket."), 429
    return jsonify(success=True, ticket_number=ticket.ticket_number, data={
        "id": ticket.id, "ticket_number": ticket.ticket_number, "ip_address": ticket.ip_address,
        "name": ticket.name, "email": ticket.email, "status": ticket.status,
        "created_at": iso(ticket.created_at)}), 201


@app.post("/submit-form")
def submit_form():
    ticket = new_ticket(request.form)
    if ticket is None:
        return "Sudah ada tiket.", 429
    return redirect(f"/submitted/{ticket.ticket_number}", 303)


def save_trusted(user_id):
    ip = request.remote_addr
    device_id = request.headers.get("X-Device-Id")
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
    db.session.commit()
    return jsonify(success=True, message=f"IP {ip} tersimpan.", data={
        "id": record.id, "user_id": record.user_id, "ip_address": record.ip_address,
        "local_ip": None, "device_id": record.device_id, "device_name": record.device_name,
        "operating_system": record.operating_system, "is_active": record.is_active,
        "verified_at": iso(record.verified_at)}), 201 if created else 200


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
