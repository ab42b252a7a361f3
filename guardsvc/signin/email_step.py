"""The e-mailed code of a password sign-in from somewhere new (signin/verification.py has the rules).

``email_step`` serves both doors: the JSON door calls it with the password
and, once the person has it, ``email_code``; the web door asks for the code
on a page of its own after the password step (``sign_in_with_email_code``).
"""
from guardsvc import messages
from guardsvc.accounts.service import audit_account
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.places.geoip import locate
from guardsvc.signin import verification
from guardsvc.signin.outcomes import EMAIL_CODE_REQUIRED, WRONG_EMAIL_CODE, refuse, still_pending, succeed, throttled
from guardsvc.signin.throttle import WRONG_PASSWORD
from guardsvc.storage.clock import isoformat
from guardsvc.web.errors import Unauthorized


def _verification_required(message, record):
    """The refusal that asks for the e-mailed code: how far its e-mail got, and until when it works."""
    return Unauthorized(message, extra={"verification_required": True,
                                        "email_delivery": verification.delivery_of(record),
                                        "code_expires_at": isoformat(record.expires_at)})


def email_step(user, client, email, novelty, email_code):
    """Send the code (once per place while it lives), or check the one given.

    Without ``email_code`` the code is sent (unless one is pending for this
    account and address) and the sign-in waits for it. A wrong code is refused
    and counted like a wrong password; a code given when none is usable any
    more (its time or its tries are up) brings a new one. The caller consulted
    the account's wrong-password throttle, under its lock, before this step.
    """
    record = verification.pending_code(user, client.ip_address)
    if email_code is None or record is None:
        message = messages.EMAIL_CODE_RENEWED if email_code is not None else messages.EMAIL_CODE_SENT
        record = verification.send_code(user, client, novelty)
        outcome = refuse(EMAIL_CODE_REQUIRED, client, email, user, _verification_required(message, record))
        outcome.email_code_reason = record.reason
        return outcome
    if not verification.use_code(record, email_code):
        return refuse(WRONG_EMAIL_CODE, client, email, user, _verification_required(messages.EMAIL_CODE_WRONG, record))
    audit_account("signin.email_code_passed", user, actor=user, client=client, country=record.country)
    return succeed(user, client, email, "email_verified", novelty)


def _restart(user_id, client):
    """The half-finished sign-in no longer holds: recorded like a wrong code, and the person starts again."""
    user = db.session.get(User, user_id)
    outcome = refuse(WRONG_EMAIL_CODE, client, user.email if user else "", user,
                     Unauthorized(messages.SIGNIN_CODE_EXPIRED))
    outcome.restart = True
    return outcome


def sign_in_with_email_code(state, code, client):
    """The web door's e-mailed-code step, for the account that passed the password step (``state``)."""
    user = still_pending(state["user_id"], state["stamp"], needs_2fa=False)
    if user is None:
        return _restart(state["user_id"], client)
    refused = throttled(WRONG_PASSWORD, client, user.email, user)
    if refused is not None:
        return refused
    return email_step(user, client, user.email, _novelty(state, client), code)


def _novelty(state, client):
    # What the password step found; a code sent again names the place the address is now.
    return verification.Novelty.for_reason(locate(client.ip_address), state.get("reason") or verification.NEW_COUNTRY)


def resend_email_code(state, client):
    """A new code for the pending web sign-in (the old one stops working); None when the last one is
    under a minute old, or the account changed since the password step."""
    user = still_pending(state["user_id"], state["stamp"], needs_2fa=False)
    if user is None:
        return None
    if verification.pending_code(user, client.ip_address) is None:
        return verification.send_code(user, client, _novelty(state, client))
    return verification.resend_code(user, client)


def pending_code_of(state, client):
    """The code the pending web sign-in waits for (None when its time or tries are up, or the account changed)."""
    user = still_pending(state["user_id"], state["stamp"], needs_2fa=False)
    return verification.pending_code(user, client.ip_address) if user is not None else None
