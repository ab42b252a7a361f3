"""Device verification by e-mail: a password sign-in from somewhere new proves the address with a code.

An account without 2FA that signs in with its password from a country it has
not signed in from successfully in ``KNOWN_COUNTRY_DAYS`` days, or from a place
it could not have reached since its last successful sign-in without travelling
faster than ``MAX_TRAVEL_KMH``, gets an 8-digit code by e-mail (its place
named) and is signed in only with it. The account's first sign-in ever, and a
sign-in whose address the GeoIP database does not locate, are never asked.
The countries are kept apart from the sign-in history (``SignInCountry``, for
``KNOWN_COUNTRY_DAYS``), which may be purged sooner: a quiet account whose
history is gone is asked, as from a new country, never taken for a first
sign-in (contract section 16, fifth edition).

A code is kept as a keyed hash only, works for ``CODE_MINUTES`` and at most
``CODE_TRIES`` wrong tries, once, and only from the address it was sent for.
One code is pending per account and address (a partial unique index): a
second sign-in from there while it lives gets no second e-mail. Its e-mail is
queued in the sign-in's transaction, so an SMTP outage never loses it;
``delivery_of`` says honestly how far it got.
"""
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import case, select, update

from guardsvc import messages
from guardsvc.accounts.service import audit_account
from guardsvc.extensions import db
from guardsvc.outbox.service import delivery_state, queue_mail
from guardsvc.places import geoip, names, travel
from guardsvc.signin.models import SUCCESS_RESULTS, EmailVerification, LoginEvent, SignInCountry
from guardsvc.storage import clock
from guardsvc.storage.inserts import insert_or_update, insert_unless_conflict
from guardsvc.storage.sealing import code_digests
from guardsvc.web.humantime import human_time
from guardsvc.web.links import external_url
from guardsvc.web.locale import in_language
from guardsvc.web.useragent import describe_user_agent

CODE_DIGITS = 8
CODE_MINUTES = 15
CODE_TRIES = 5
KNOWN_COUNTRY_DAYS = 180
MAX_TRAVEL_KMH = 1000
# However often the password is typed, the owner receives at most one new code a minute.
RESEND_AFTER = timedelta(minutes=1)
NEW_COUNTRY, FAST_TRAVEL = "new_country", "fast_travel"


@dataclass(frozen=True)
class Novelty:
    """What is new about where a sign-in comes from, judged before it is recorded."""

    place: object = None  # places.geoip.Place, or None when the address is not located
    new_country: bool = False
    fast_travel: bool = False

    @classmethod
    def for_reason(cls, place, reason):
        """The novelty a pending sign-in was found to have (its ``reason``), at ``place``."""
        return cls(place, new_country=reason == NEW_COUNTRY, fast_travel=reason == FAST_TRAVEL)

    @property
    def reason(self):
        """Why an account without 2FA must prove its e-mail address here, or None."""
        return NEW_COUNTRY if self.new_country else FAST_TRAVEL if self.fast_travel else None


def _successes(user):
    return select(LoginEvent).where(LoginEvent.user_id == user.id, LoginEvent.result.in_(SUCCESS_RESULTS))


def has_signed_in(user):
    """True once ``user`` signed in successfully, however long ago (its history may be purged since)."""
    if user.first_signed_in_at is not None:
        return True
    # Sign-ins recorded by the previous release's code, which did not set the column.
    return db.session.scalar(_successes(user).with_only_columns(LoginEvent.id).limit(1)) is not None


def knows_country(user, country, now):
    """True when ``user`` signed in successfully from ``country`` within ``KNOWN_COUNTRY_DAYS`` of ``now``."""
    since = now - timedelta(days=KNOWN_COUNTRY_DAYS)
    kept = db.session.scalar(select(SignInCountry.id).where(
        SignInCountry.user_id == user.id, SignInCountry.country == country,
        SignInCountry.last_signed_in_at >= since).limit(1))
    if kept is not None:
        return True
    # A sign-in recorded by the previous release's code (it kept no countries) is still in the history.
    return db.session.scalar(_successes(user).with_only_columns(LoginEvent.id).where(
        LoginEvent.country == country, LoginEvent.created_at >= since).limit(1)) is not None


def judge_place(user, client):
    """Where ``client`` is, and whether that is a new country or an impossible journey for ``user``.

    Only the account's first sign-in ever has nothing to compare with. An account whose
    history was purged (GUARDSVC_SIGNIN_HISTORY_DAYS) still has the countries it signed in
    from (``SignInCountry``): a country it has no record of is new.
    """
    place = geoip.locate(client.ip_address)
    if place is None or not has_signed_in(user):
        return Novelty(place)
    now = clock.utcnow()
    last = db.session.scalar(_successes(user).order_by(LoginEvent.created_at.desc(), LoginEvent.id.desc())
                             .limit(1))
    speed = (travel.implied_speed_kmh(geoip.locate(last.ip_address), last.created_at, place, now)
             if last is not None else None)
    return Novelty(place, new_country=not knows_country(user, place.country, now),
                   fast_travel=speed is not None and speed > MAX_TRAVEL_KMH)


def remember_sign_in(user, place, now):
    """A successful sign-in of ``user`` at ``now``: its first is noted, and its country kept (when located)."""
    if user.first_signed_in_at is None:
        user.first_signed_in_at = now
    if place is not None and place.country:
        insert_or_update(SignInCountry, {"user_id": user.id, "country": place.country, "last_signed_in_at": now},
                         keys=("user_id", "country"), update=("last_signed_in_at",))


def _digest(code):
    return code_digests(f"signin-email:{code}")


def pending_code(user, ip_address):
    """The code waiting for ``user``'s sign-in from ``ip_address``, or None (one past its time is retired)."""
    record = db.session.scalar(select(EmailVerification).where(
        EmailVerification.user_id == user.id, EmailVerification.ip_address == ip_address,
        EmailVerification.state == "pending"))
    if record is not None and record.expires_at <= clock.utcnow():
        record.state = "expired"
        db.session.flush()
        return None
    return record


def send_code(user, client, novelty):
    """E-mail a new code for ``user``'s sign-in from ``client`` (unless one is pending there): the record."""
    pending = pending_code(user, client.ip_address)
    if pending is not None:
        return pending
    code = f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"
    now = clock.utcnow()
    place = novelty.place
    record = insert_unless_conflict(EmailVerification, dict(
        user_id=user.id, ip_address=client.ip_address, code_hash=_digest(code)[0], state="pending",
        reason=novelty.reason, tries=0, created_at=now, expires_at=now + timedelta(minutes=CODE_MINUTES),
        country=place.country if place else None, city=place.city if place else None))
    if record is None:  # a concurrent sign-in from the same place sent one a moment ago
        return pending_code(user, client.ip_address)
    record.mail_id = _queue_code_mail(user, client, record, code, place)
    audit_account("signin.email_code_sent", user, actor=user, client=client, reason=record.reason,
                  country=record.country)
    db.session.flush()
    return record


def resend_code(user, client):
    """Replace the pending code of this place with a new one; None when the last one is under a minute old."""
    pending = pending_code(user, client.ip_address)
    if pending is None:
        return None
    if clock.utcnow() - pending.created_at < RESEND_AFTER:
        return None
    replaced = db.session.execute(update(EmailVerification).where(
        EmailVerification.id == pending.id, EmailVerification.state == "pending")
        .values(state="replaced").execution_options(synchronize_session=False)).rowcount
    if replaced != 1:
        return None
    db.session.expire(pending)
    return send_code(user, client, Novelty.for_reason(geoip.locate(client.ip_address), pending.reason))


def use_code(record, code):
    """True when ``code`` is ``record``'s and it was still usable (it is used now, once); else one try is spent.

    Each outcome is one conditional UPDATE, so concurrent tries cannot use a
    code twice or take more than ``CODE_TRIES`` guesses between them.
    """
    now = clock.utcnow()
    table = EmailVerification.__table__
    usable = (table.c.id == record.id, table.c.state == "pending", table.c.expires_at > now)
    if isinstance(code, str) and any(hmac.compare_digest(record.code_hash, digest) for digest in _digest(code)):
        used = db.session.execute(update(table).where(*usable).values(state="used", used_at=now)).rowcount
        if used == 1:
            db.session.expire(record)
            return True
    db.session.execute(update(table).where(*usable).values(
        tries=table.c.tries + 1, state=case((table.c.tries + 1 >= CODE_TRIES, "spent"), else_="pending")))
    db.session.expire(record)
    return False


def delivery_of(record):
    """How far the code's e-mail got: ``queued``, ``sent``, ``retrying`` (the mail server failed so far) or ``failed``."""
    return delivery_state(record.mail_id) if record is not None and record.mail_id else "queued"


def _queue_code_mail(user, client, record, code, place):
    with in_language(user.language):  # the holder's language, whoever typed the password
        where = names.label_of(place) or messages.PLACE_UNKNOWN
        return queue_mail(
            "signin_code", user.email, messages.EMAIL_CODE_SUBJECT.format(place=where), "signin_code",
            name=user.name, email=user.email, code=code, place=where, reason=record.reason,
            minutes=CODE_MINUTES, when=human_time(record.created_at), until=human_time(record.expires_at),
            ip_address=record.ip_address,
            device=describe_user_agent(client.user_agent) or messages.UNRECOGNISED_DEVICE,
            forgot_url=external_url("recovery_pages.forgot_form"))
