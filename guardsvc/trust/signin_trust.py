"""Sign-in trust: the secret a browser earns with "Percayai perangkat ini", and what it proves.

Host-check trust (the seed's trusted-IP list) rests on (user, IP, device) and
any authenticated save-my-ip creates it. Skipping the code step rests on more:
a random secret the service gave that browser in its own cookie, of which only
the SHA-256 is kept on the trusted record, and the record's IP. A device id or
an address alone never skips anything. Lifetime and revocation are the
record's (``TRUST_LIFETIME_DAYS``, revoke, password change, 2FA turned off).
"""
import hmac
import secrets

from sqlalchemy import select, update

from guardsvc.extensions import db
from guardsvc.trust.models import TrustedIp
from guardsvc.trust.service import lifetime_cutoff
from guardsvc.web.identity import digest


def new_trust_secret():
    """``(secret, its hash)``: the secret goes to the browser, the hash onto the trusted record."""
    secret = secrets.token_urlsafe(32)  # 256 bits
    return secret, digest(secret)


def _live_hashes(user_id, *conditions):
    query = select(TrustedIp.secret_hash).where(
        TrustedIp.user_id == user_id, TrustedIp.is_active.is_(True), TrustedIp.secret_hash.is_not(None),
        *conditions)
    cutoff = lifetime_cutoff()
    if cutoff is not None:
        query = query.where(TrustedIp.verified_at >= cutoff)
    return db.session.scalars(query).all()


def _matches(hashes, trust_secret):
    if not trust_secret:
        return False
    presented = digest(trust_secret)
    # Every candidate is compared, in constant time each: no early exit tells which one was close.
    return sum(hmac.compare_digest(presented, stored) for stored in hashes) > 0


def skips_code_step(user_id, ip_address, trust_secret):
    """True when a sign-in may skip the code: a live record of the account at this IP holds this secret."""
    return bool(trust_secret) and _matches(_live_hashes(user_id, TrustedIp.ip_address == ip_address),
                                           trust_secret)


def presents_trust_secret(user_id, trust_secret):
    """True when the browser holds the trust secret of one of the account's live records (any IP)."""
    return bool(trust_secret) and _matches(_live_hashes(user_id), trust_secret)


def forget_sign_in_trust(user):
    """No browser of ``user`` skips the code any more (2FA turned off); host-check trust stays."""
    db.session.execute(update(TrustedIp).where(TrustedIp.user_id == user.id, TrustedIp.secret_hash.is_not(None))
                       .values(secret_hash=None).execution_options(synchronize_session="fetch"))
