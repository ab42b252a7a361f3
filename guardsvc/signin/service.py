"""The sign-in flow: password, then (unless the device is trusted) a second step.

Every attempt is written to the login history. Functions return a SignInOutcome
instead of raising, so the door can commit the history row even when the
attempt is refused, and then answer with ``outcome.error``.
"""
from guardsvc import messages
from guardsvc.accounts import passwords, service as accounts
from guardsvc.accounts.breached import is_breached
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.passkeys import service as passkeys
from guardsvc.sessions import service as sessions
from guardsvc.signin import verification
from guardsvc.signin.email_step import email_step
from guardsvc.signin.outcomes import (FULLY_PROVEN_RESULTS, SECOND_FACTOR_RESULTS, SignInOutcome,  # noqa: F401
                                      account_stamp, record_attempt, refuse as _refuse, still_pending,
                                      succeed as _succeed, throttled as _throttled)
from guardsvc.signin.throttle import WRONG_CODE, WRONG_PASSWORD
from guardsvc.trust.service import trust_device
from guardsvc.trust.signin_trust import new_trust_secret, skips_code_step
from guardsvc.twofactor.service import verify_second_factor
from guardsvc.web.errors import Forbidden, InvalidState, Unauthorized, ValidationFailed


def _check_code(user, client, email, code):
    throttled = _throttled(WRONG_CODE, client, email, user)
    if throttled is not None:
        return throttled
    method = verify_second_factor(user, code)
    if method is None:
        return _refuse(WRONG_CODE, client, email, user,
                       Unauthorized(messages.TOTP_WRONG_CODE, extra={"otp_required": True}))
    return _succeed(user, client, email, SECOND_FACTOR_RESULTS[method])


def _check_passkey(user, client, response):
    """A passkey of ``user`` as the second step; refused like a wrong code (and counted as one)."""
    throttled = _throttled(WRONG_CODE, client, user.email, user)
    if throttled is not None:
        return throttled
    try:
        passkeys.use_passkey(response, passkeys.SECOND_FACTOR, user=user, client=client)
    except passkeys.PasskeyRefused as refused:
        return _refuse(WRONG_CODE, client, user.email, user, refused)
    return _succeed(user, client, user.email, SECOND_FACTOR_RESULTS["totp"])


def sign_in_with_passkey(response, client):
    """"Masuk dengan passkey": a discoverable passkey with user verification, no e-mail or password.

    It proves both factors (something the person has, unlocked by something
    they know or are), so it is recorded as a passed second factor and the
    session starts re-authenticated. Only a refusal whose signature was verified
    (``refused.proven``: the account's own credential answered) is written to that
    account's history as a wrong code. Anything else, a forged answer naming someone's
    credential id, is a failed attempt of no account: it must not spend the owner's
    allowance of wrong codes (``signin/throttle.py``); the per-address limit of the door bounds it.
    """
    try:
        passkey = passkeys.use_passkey(response, passkeys.PASSWORDLESS, client=client)
    except passkeys.PasskeyRefused as refused:
        user = refused.user if refused.proven else None
        return _refuse(WRONG_CODE, client, user.email if user else "", user, refused)
    user = passkey.user
    if not user.is_active:
        return _refuse("not_allowed", client, user.email, user, Unauthorized(messages.PASSKEY_REFUSED))
    if user.is_service:
        return _refuse("not_allowed", client, user.email, user, Forbidden(messages.SERVICE_ACCOUNT_NO_WEB))
    return _succeed(user, client, user.email, SECOND_FACTOR_RESULTS["totp"])


def sign_in(email, password, client, code=None, *, web=False, email_code=None):
    """Check e-mail and password, then the second step when the account needs it here.

    The second step is skipped when the account has no 2FA, or when the
    browser presents the trust secret of a live trusted record of the account
    at this IP (trust/signin_trust.py); a device id or an address never skips it.
    Without ``code`` a 2FA account answers ``code_required`` (the web flow
    then asks for the code on its own page).
    An account without 2FA signing in from somewhere new answers
    ``email_code_required`` until ``email_code`` holds the code it was e-mailed
    (signin/verification.py).
    Service accounts may only use tokens, so ``web`` sign-ins refuse them.
    An account out of wrong passwords (or, past the password, of wrong codes)
    is refused with 429 whatever was sent (``signin/throttle.py``). The slow
    password hash is checked before the throttle takes the account's lock, so
    concurrent sign-ins never queue behind each other's hashing; the decision
    itself is taken under the lock.
    """
    known = accounts.find_user_by_email(email)
    # A spent account is refused before its password is hashed: guessing cannot buy CPU.
    throttled = _throttled(WRONG_PASSWORD, client, email, known, exact=False)
    if throttled is not None:
        return throttled
    try:
        user, wrong = accounts.verify_credentials(known, password), None
    except Unauthorized as exc:
        user, wrong = None, exc
    throttled = _throttled(WRONG_PASSWORD, client, email, known)
    if throttled is not None:
        return throttled
    if wrong is not None:
        return _refuse(WRONG_PASSWORD, client, email, known, wrong)
    if web and user.is_service:
        # Only reached with the right password, so this reveals nothing to a guesser.
        return _refuse("not_allowed", client, email, user, Forbidden(messages.SERVICE_ACCOUNT_NO_WEB))
    outcome = _after_password(user, client, email, code, email_code)
    # Asked only of the right password, so the answer tells a guesser nothing.
    outcome.password_breached = is_breached(password)
    return outcome


def _after_password(user, client, email, code, email_code):
    """The steps after a right password: the e-mailed code from somewhere new (no 2FA), or the second factor."""
    if not user.has_2fa:
        novelty = verification.judge_place(user, client)
        if novelty.reason:
            return email_step(user, client, email, novelty, email_code)
        return _succeed(user, client, email, "success", novelty)
    if skips_code_step(user.id, client.ip_address, client.trust_secret):
        return _succeed(user, client, email, "2fa_skipped")
    if not code:
        # A code step that could only be refused is not offered.
        return _throttled(WRONG_CODE, client, email, user) or _refuse(
            "code_required", client, email, user,
            Unauthorized(messages.TOTP_CODE_REQUIRED, extra={"otp_required": True}))
    return _check_code(user, client, email, code)


def pending_user(state):
    """The account a half-finished sign-in (``signin.pending``) is for, or InvalidState when it no longer holds."""
    user = still_pending(state["user_id"], state["stamp"])
    if user is None:
        raise InvalidState(messages.SIGNIN_CODE_EXPIRED)
    return user


def offers_passkey(state):
    """True when the code step of this half-finished sign-in may offer "Gunakan passkey"."""
    user = still_pending(state["user_id"], state["stamp"])
    return user is not None and passkeys.has_passkeys(user)


def sign_in_with_code(user_id, stamp, code, client, *, trust_this_device=False, passkey=None):
    """Second step of the web flow, for the user who passed the password step.

    The step is a TOTP or recovery ``code``, or the browser's answer with one of
    the account's passkeys (``passkey``).

    Refused when the account changed meanwhile (deactivated, password
    changed, 2FA turned off). With ``trust_this_device`` a successful sign-in
    also trusts (user, IP, device) and gives this browser a trust secret
    (``outcome.trust_secret``, for the door to send), so the next sign-in from
    this browser at this IP skips the code: trust earned with a second factor here.
    """
    user = still_pending(user_id, stamp)
    if user is None:
        user = db.session.get(User, user_id)
        outcome = _refuse(WRONG_CODE, client, user.email if user else "", user,
                          Unauthorized(messages.SIGNIN_CODE_EXPIRED))
        outcome.restart = True
        return outcome
    if passkey:
        outcome = _check_passkey(user, client, passkey)
    else:
        outcome = _check_code(user, client, user.email, code)
    if outcome.signed_in and trust_this_device:
        outcome.trust_secret, secret_hash = new_trust_secret()
        trust_device(user, client, secret_hash=secret_hash)
    return outcome


def sign_in_for_token(email, password, client, *, code=None, email_code=None, token_name=None):
    """``POST /api/auth/tokens``: a full sign-in that, when it succeeds, issues a token."""
    outcome = sign_in(email, password, client, code=code, email_code=email_code)
    if outcome.signed_in:
        outcome.token, outcome.token_record = accounts.create_token(outcome.user, token_name, client=client)
    return outcome


def _second_factor_refusal(user, code, passkey, client):
    """None when ``code`` (or, given, the ``passkey`` answer) is a valid second factor of ``user``; else the message."""
    if passkey:
        try:
            passkeys.use_passkey(passkey, passkeys.SECOND_FACTOR, user=user, client=client)
        except passkeys.PasskeyRefused as refused:
            return refused.message
        return None
    return None if verify_second_factor(user, code) is not None else messages.TOTP_WRONG_CODE


def reauthenticate(user, password, code, client, session_record, *, passkey=None):
    """Confirm that the signed-in person is the account's owner: the password, and a second factor with 2FA.

    The second factor is a code, or one of the account's passkeys (``passkey``: the browser's answer).

    Success stamps ``session_record`` as re-authenticated. Each failure is
    written to the sign-in history (``wrong_password`` / ``wrong_code``) and
    kept, like a failed sign-in, then raised as ValidationFailed on its field.
    The account throttle counts these failures with those of signing in: an
    account out of guesses is refused (429, ``locked``) before anything is checked.
    """
    early = _throttled(WRONG_PASSWORD, client, user.email, user, exact=False)
    if early is not None:
        raise early.error
    right_password = isinstance(password, str) and passwords.verify_password(user.password_hash, password)
    for failure in (WRONG_PASSWORD,) + ((WRONG_CODE,) if user.has_2fa else ()):
        throttled = _throttled(failure, client, user.email, user)
        if throttled is not None:
            raise throttled.error
    if not right_password:
        raise _refuse(WRONG_PASSWORD, client, user.email, user,
                      ValidationFailed({"password": [messages.WRONG_PASSWORD]})).error
    refusal = _second_factor_refusal(user, code, passkey, client) if user.has_2fa else None
    if refusal is not None:
        raise _refuse(WRONG_CODE, client, user.email, user, ValidationFailed({"code": [refusal]})).error
    sessions.mark_reauthenticated(session_record, second_factor=user.has_2fa)
    return session_record
