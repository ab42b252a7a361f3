"""Trusted devices: registering, revoking and asking whether a caller is trusted."""
from datetime import timedelta

from flask import current_app
from sqlalchemy import bindparam, func, select

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.accounts import notices
from guardsvc.web.errors import NotFound
from guardsvc.extensions import db
from guardsvc.storage.inserts import as_entity, columns_of, insert_unless_conflict
from guardsvc.storage.statements import Prepared
from guardsvc.outbox.service import store_mail
from guardsvc.trust.models import TrustedIp
from guardsvc.web.useragent import describe_user_agent


# NULL matches NULL: the unique index compares coalesce(device_id, '').
_DEVICE_KEY = func.coalesce(TrustedIp.device_id, "")


def _same_device(device_id):
    return _DEVICE_KEY == (device_id or "")


# The record of one (user, IP, device): built once, as every save-my-ip asks it first.
_COLUMNS, _NAMES = columns_of(TrustedIp)
_RECORD = Prepared(select(*_COLUMNS).where(TrustedIp.user_id == bindparam("user_id"),
                                           TrustedIp.ip_address == bindparam("ip_address"),
                                           _DEVICE_KEY == bindparam("device_id")))


def _find(user_id, ip_address, device_id):
    row = _RECORD.first({"user_id": user_id, "ip_address": ip_address, "device_id": device_id or ""})
    return None if row is None else as_entity(TrustedIp, _NAMES, row)


def trust_device(user, client, device_name=None, *, secret_hash=None):
    """Register the caller's (IP, device) as trusted for ``user``.

    ``secret_hash``: the browser earned sign-in trust and holds the secret of
    this hash (trust/signin_trust.py); without it the record gives host-check
    trust only, and a sign-in trust the record already had is kept.

    Returns ``(record, created)``. Registering the same triple again refreshes
    it (verified_at, agent, active again, the name only when one is given)
    instead of adding a second row; a concurrent first registration that loses
    the race becomes that refresh. A first registration without a name is
    named after the browser and system ("Chrome di Windows"). The owner is told
    by e-mail whenever a device becomes trusted (new, or again after a revoke).
    """
    for _ in range(2):
        record = _find(user.id, client.ip_address, client.device_id)
        if record is not None:
            trusted_again = not record.is_active
            _refresh(record, client, device_name)
            if secret_hash:
                record.secret_hash = secret_hash
            db.session.flush()
            if trusted_again:
                notices.device_trusted(user, record, client=client)
            return record, False
        name = device_name or _derived_name(client)
        notice = notices.device_trusted_notice(user, name, client=client)  # composed before the write
        # A concurrent first save that wins the race makes this insert a no-op (then the
        # loop refreshes its row); whatever the request wrote before (a sign-in's history) stays.
        record = insert_unless_conflict(TrustedIp, dict(
            user_id=user.id, ip_address=client.ip_address, device_id=client.device_id,
            device_issued=bool(client.device_id) and client.device_id == client.device_cookie,
            secret_hash=secret_hash,
            local_ip=client.local_ip, device_name=name, operating_system=client.user_agent, is_active=True))
        if record is not None:
            store_mail(notice)
            return record, True
    raise RuntimeError("trusted IP neither inserted nor found")  # pragma: no cover


def _derived_name(client):
    return describe_user_agent(client.user_agent) or messages.UNNAMED_DEVICE


def _refresh(record, client, device_name):
    now = clock.utcnow()
    record.verified_at = now
    if device_name:  # a refresh without a name keeps the one the person chose
        record.device_name = device_name
    record.operating_system = client.user_agent
    record.local_ip = client.local_ip
    record.is_active = True
    record.revoked_at = None


def lifetime_cutoff():
    days = current_app.config.get("TRUST_LIFETIME_DAYS") or 0
    return clock.utcnow() - timedelta(days=days) if days > 0 else None


def is_trusted(user_id, ip_address, device_id):
    """True when an active, unexpired record matches user, IP and device exactly."""
    query = select(TrustedIp.id).where(
        TrustedIp.user_id == user_id, TrustedIp.ip_address == ip_address,
        _same_device(device_id), TrustedIp.is_active.is_(True))
    cutoff = lifetime_cutoff()
    if cutoff is not None:
        query = query.where(TrustedIp.verified_at >= cutoff)
    return db.session.scalar(query.limit(1)) is not None


def list_trusted(user):
    """The user's records, active first, newest first."""
    return db.session.scalars(select(TrustedIp).where(TrustedIp.user_id == user.id).order_by(
        TrustedIp.is_active.desc(), TrustedIp.verified_at.desc(), TrustedIp.id.desc())).all()


def get_own(user, record_id):
    """One of the user's records; another user's id is NotFound (never 403: no probing)."""
    record = db.session.get(TrustedIp, record_id)
    if record is None or record.user_id != user.id:
        raise NotFound(messages.TRUSTED_IP_NOT_FOUND)
    return record


def revoke(record):
    """Stop trusting a record; the row stays for audit."""
    if record.is_active:
        record.is_active = False
        record.revoked_at = clock.utcnow()
    return record


def revoke_all(user):
    """Stop trusting every device of ``user`` (rows stay for audit); returns how many."""
    records = db.session.scalars(select(TrustedIp).where(TrustedIp.user_id == user.id,
                                                        TrustedIp.is_active.is_(True))).all()
    for record in records:
        revoke(record)
    return len(records)


def rename(record, device_name):
    """Give one of the user's records a new name (already trimmed and checked by the schema)."""
    record.device_name = device_name
    return record


def is_this_device(record, client):
    """True when ``record`` describes the calling client's IP and device (null matches null)."""
    return record.ip_address == client.ip_address and (record.device_id or None) == client.device_id
