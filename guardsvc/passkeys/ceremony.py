"""The WebAuthn ceremonies, on the ``webauthn`` library: options out, responses checked.

The library checks the origin, the relying party id, the challenge, the
flags and the signatures; this module decides what is expected. Challenges
are single-use and short-lived: each is stored (as a hash) with its purpose
and account, and deleted by the first response that presents it, so a
replayed response finds nothing to match.
"""
import hashlib
import json
from datetime import timedelta
from urllib.parse import urlsplit

from flask import current_app
from sqlalchemy import delete, select
from webauthn import (generate_authentication_options, generate_registration_options,
                      verify_authentication_response, verify_registration_response)
from webauthn.helpers import (base64url_to_bytes, options_to_json_dict, parse_authentication_credential_json,
                              parse_client_data_json, parse_registration_credential_json)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (AuthenticatorSelectionCriteria, AuthenticatorTransport,
                                      PublicKeyCredentialDescriptor, ResidentKeyRequirement,
                                      UserVerificationRequirement)

from guardsvc import messages
from guardsvc.extensions import db
from guardsvc.passkeys.models import PASSWORDLESS, REGISTER, PasskeyChallenge
from guardsvc.storage import clock
from guardsvc.web.errors import Unauthorized

CHALLENGE_MINUTES = 5
TIMEOUT_MS = CHALLENGE_MINUTES * 60 * 1000
RP_NAME = "guardsvc"
_TRANSPORTS = {transport.value for transport in AuthenticatorTransport}


class PasskeyRefused(Unauthorized):
    """A passkey response that cannot be accepted; ``user`` is its account when that is known.

    ``proven``: the signature was verified first, so the answer really came from
    that account's credential (a sign count that went backwards). Anything else
    can be forged by anyone who knows a credential id, so it proves nothing about the account.
    The refusal keeps what the request wrote: a challenge it spent stays spent
    (a rolled-back DELETE would let the same answer be tried again), and so do
    the notice and audit entry of a sign count that went backwards.
    """

    keeps_writes = True

    def __init__(self, message=messages.PASSKEY_REFUSED, *, user=None, proven=False):
        super().__init__(message)
        self.user = user
        self.proven = proven


def rp_id():
    """The relying party id: ``WEBAUTHN_RP_ID``, else the host of ``BASE_URL``."""
    return current_app.config.get("WEBAUTHN_RP_ID") or urlsplit(current_app.config["BASE_URL"]).hostname


def expected_origin():
    """The origin (scheme://host[:port]) of ``BASE_URL``: the only page a ceremony may come from."""
    parts = urlsplit(current_app.config["BASE_URL"])
    return f"{parts.scheme}://{parts.netloc}"


def _rp_name():
    return current_app.config.get("SITE_NAME") or RP_NAME


def _digest(challenge):
    return hashlib.sha256(challenge).hexdigest()


def _store_challenge(challenge, purpose, user, user_handle=None):
    now = clock.utcnow()
    # Old, unused challenges go as new ones come: the table stays as small as the ceremonies in flight.
    db.session.execute(delete(PasskeyChallenge).where(PasskeyChallenge.expires_at < now)
                       .execution_options(synchronize_session=False))
    db.session.add(PasskeyChallenge(challenge_hash=_digest(challenge), purpose=purpose,
                                    user_id=user.id if user is not None else None, user_handle=user_handle,
                                    expires_at=now + timedelta(minutes=CHALLENGE_MINUTES)))
    db.session.flush()


def _consume_challenge(challenge, purpose, user):
    """Spend the stored challenge (once: the DELETE that removes it decides) and return its row.

    Unknown, expired, of another purpose or another account: PasskeyRefused.
    """
    found = db.session.scalar(select(PasskeyChallenge).where(
        PasskeyChallenge.challenge_hash == _digest(challenge), PasskeyChallenge.purpose == purpose))
    if found is None or found.expires_at < clock.utcnow() or (
            user is not None and found.user_id != user.id):
        raise PasskeyRefused(messages.PASSKEY_CHALLENGE_EXPIRED, user=user)
    spent = db.session.execute(delete(PasskeyChallenge).where(PasskeyChallenge.id == found.id)
                               .execution_options(synchronize_session=False)).rowcount
    if spent != 1:  # a concurrent request with the same response got there first
        raise PasskeyRefused(messages.PASSKEY_CHALLENGE_EXPIRED, user=user)
    return found


def _descriptors(passkeys):
    return [PublicKeyCredentialDescriptor(id=base64url_to_bytes(passkey.credential_id),
                                          transports=[AuthenticatorTransport(value)
                                                      for value in passkey.transport_list if value in _TRANSPORTS])
            for passkey in passkeys]


def registration_options(user, user_handle, existing):
    """Options for ``navigator.credentials.create()`` (a JSON-ready dict); the challenge is stored.

    ``user_handle`` (base64url) is stored with the challenge and given to the passkey it creates.
    Discoverable (resident) credentials are asked for, so the passkey can later
    sign in without the e-mail; ``existing`` passkeys are excluded.
    """
    options = generate_registration_options(
        rp_id=rp_id(), rp_name=_rp_name(), user_name=user.email, user_display_name=user.name,
        user_id=base64url_to_bytes(user_handle), timeout=TIMEOUT_MS, exclude_credentials=_descriptors(existing),
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED))
    _store_challenge(options.challenge, REGISTER, user, user_handle)
    return options_to_json_dict(options)


def authentication_options(purpose, user=None, passkeys=()):
    """Options for ``navigator.credentials.get()`` (a JSON-ready dict); the challenge is stored.

    A passwordless sign-in names no credential (the authenticator offers its
    discoverable ones) and requires user verification; a second factor lists the account's passkeys.
    """
    verification = (UserVerificationRequirement.REQUIRED if purpose == PASSWORDLESS
                    else UserVerificationRequirement.PREFERRED)
    options = generate_authentication_options(rp_id=rp_id(), timeout=TIMEOUT_MS,
                                              allow_credentials=_descriptors(passkeys),
                                              user_verification=verification)
    _store_challenge(options.challenge, purpose, user)
    return options_to_json_dict(options)


def _load(response):
    """The browser's credential as a dict (it may arrive as JSON text from a form field)."""
    if isinstance(response, str):
        try:
            response = json.loads(response)
        except ValueError:
            raise PasskeyRefused() from None
    if not isinstance(response, dict):
        raise PasskeyRefused()
    return response


def _client_challenge(credential):
    try:
        return parse_client_data_json(credential.response.client_data_json).challenge
    except (WebAuthnException, ValueError, KeyError, TypeError):
        raise PasskeyRefused() from None


def verify_registration(user, response):
    """Check a ``create()`` response for ``user``: ``(verified registration, transports, user handle)``."""
    try:
        credential = parse_registration_credential_json(_load(response))
    except WebAuthnException:
        raise PasskeyRefused() from None
    challenge = _client_challenge(credential)
    issued = _consume_challenge(challenge, REGISTER, user)
    try:
        verified = verify_registration_response(credential=credential, expected_challenge=challenge,
                                                expected_rp_id=rp_id(), expected_origin=expected_origin())
    except WebAuthnException:
        raise PasskeyRefused(user=user) from None
    transports = [t.value for t in (credential.response.transports or []) if t.value in _TRANSPORTS]
    return verified, transports, issued.user_handle


def read_assertion(response):
    """Parse a ``get()`` response: ``(credential, its id in base64url, user handle or None)``."""
    try:
        credential = parse_authentication_credential_json(_load(response))
    except WebAuthnException:
        raise PasskeyRefused() from None
    return credential, credential.id, credential.response.user_handle


def verify_assertion(credential, passkey, purpose, user):
    """Check a ``get()`` response against the stored ``passkey``; the library's VerifiedAuthentication.

    The sign count is compared by the caller (a count that goes backwards is
    told to the owner, which needs the signature checked first), so the library
    gets 0 as the current count here.
    """
    challenge = _client_challenge(credential)
    _consume_challenge(challenge, purpose, user)
    try:
        return verify_authentication_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp_id(),
            expected_origin=expected_origin(), credential_public_key=passkey.public_key,
            credential_current_sign_count=0, require_user_verification=purpose == PASSWORDLESS)
    except WebAuthnException:
        raise PasskeyRefused(user=passkey.user) from None
