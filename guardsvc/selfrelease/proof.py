"""The proof of work: ALTCHA PoW v2 challenges bound to one client and its blocks, and their verification.

A challenge is PBKDF2/SHA-256 with ``GUARDSVC_SELF_RELEASE_COST`` iterations per
attempt, in ALTCHA's deterministic mode: the server picks the counter (uniformly
in ``[ATTEMPTS/2, 3*ATTEMPTS/2)``), derives its key once, and signs the key
(``keySignature``), so a browser tries about ATTEMPTS counters while the server
checks an answer with two HMACs and no derivation. The challenge's ``data``
binds it: a keyed digest of the client's address and device (the device cookie
is a secret, so only the digest travels) and the references of the blocks it
would release; ``expiresAt`` ends it. All of it is signed, so none of it can be
changed. The keys are derived from the secret key with HKDF and a label per
purpose, never the secret key itself; a rotated secret key ends the challenges
in flight (they live minutes).
"""
import hashlib
import hmac
import secrets
from dataclasses import dataclass

import altcha
from flask import current_app

from guardsvc.storage.sealing import derive_key
from guardsvc.web.schema_fields import BASE64_RE

ALGORITHM = "PBKDF2/SHA-256"
# Counters a browser tries, on average; the server's pick is uniform in [ATTEMPTS/2, 3*ATTEMPTS/2).
# Few attempts of many iterations: each WebCrypto call costs a browser about 0.25 ms of its own
# besides the iterations (docs/performance.md), so many cheap attempts would be mostly that.
ATTEMPTS = 1_000
PAYLOAD_MAX = 8_000  # characters of base64: a real payload is well under 1,000


def _key(secret_key, label):
    """32 bytes for one purpose, derived from the secret key (``label`` as the HKDF info)."""
    return derive_key(secret_key, f"guardsvc/self-release/{label}".encode())


def keys():
    """(challenge signing key, derived-key signing key, client-binding key) of this secret key."""
    secret_key = current_app.config["SECRET_KEY"]
    return _key(secret_key, "challenge"), _key(secret_key, "derived-key"), _key(secret_key, "client")


def client_digest(ip_address, device_id):
    """What a challenge says about its client: a keyed digest of the address and the device, nothing readable."""
    message = f"{ip_address}\n{device_id}".encode()
    return hmac.new(keys()[2], message, hashlib.sha256).hexdigest()[:32]


def new_challenge(ip_address, device_id, references, expires_at_unix):
    """A signed challenge (``Challenge.to_dict()``: ``parameters``, ``signature``) for this client and blocks."""
    challenge_key, derived_key_key, _ = keys()
    counter = ATTEMPTS // 2 + secrets.randbelow(ATTEMPTS)
    return altcha.create_challenge(
        ALGORITHM, current_app.config["SELF_RELEASE_COST"], counter=counter, expires_at=expires_at_unix,
        data={"client": client_digest(ip_address, device_id), "blocks": ",".join(sorted(references))},
        hmac_secret=challenge_key, hmac_key_secret=derived_key_key).to_dict()


@dataclass(frozen=True)
class Checked:
    """What a payload proved: ``problem`` is None for a valid proof, else what is wrong with it."""

    problem: str | None
    references: tuple = ()
    digest: str | None = None
    expires_at_unix: int | None = None


# Not base64 text (the shape the API document gives a payload), base64 of something else, or a proof
# that does not hold.
MALFORMED, UNREADABLE = "malformed", "unreadable"
EXPIRED, WRONG, OTHER_CLIENT = "expired", "wrong", "other_client"


def check_payload(payload, ip_address, device_id):
    """Verify an ALTCHA payload (base64 JSON) for this client: signature, solution, expiry, binding.

    No database and no key derivation: two HMACs and a comparison (see bench/self_release_botnet.py).
    """
    if not isinstance(payload, str) or not payload or len(payload) > PAYLOAD_MAX or not BASE64_RE.fullmatch(payload):
        return Checked(MALFORMED)
    challenge_key, derived_key_key, _ = keys()
    try:
        parsed = altcha.Payload.from_base64(payload)
        data, signature = parsed.challenge.parameters.data, parsed.challenge.signature
        if parsed.challenge.parameters.algorithm != ALGORITHM:
            return Checked(WRONG)
        result = altcha.verify_solution(parsed, challenge_key, hmac_key_secret=derived_key_key)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return Checked(UNREADABLE)
    if result.expired:
        return Checked(EXPIRED)
    if not result.verified or not isinstance(data, dict) or not isinstance(signature, str):
        return Checked(WRONG)
    if not hmac.compare_digest(str(data.get("client", "")), client_digest(ip_address, device_id)):
        return Checked(OTHER_CLIENT)
    references = tuple(reference for reference in str(data.get("blocks", "")).split(",") if reference)
    return Checked(None, references, hashlib.sha256(signature.encode()).hexdigest(),
                   parsed.challenge.parameters.expires_at)
