"""Web sign-in as a sequence of steps: password first, then whatever the account needs.

Every step ends in ``after_password`` deciding between "signed in" and "one more
step"; a second factor (TOTP unless the device is trusted) plugs in there.
"""
from dataclasses import dataclass

from guardsvc import messages
from guardsvc.accounts.models import User
from guardsvc.accounts.service import authenticate
from guardsvc.errors import Forbidden
from guardsvc.identity import Client


@dataclass(frozen=True)
class SignInStep:
    """Where a sign-in stands: ``complete`` means start the session now.

    When not complete, ``next_step`` names what the person must do next
    (for example ``"totp"``) and the door shows that step's page.
    """

    user: User
    complete: bool
    next_step: str | None = None


def check_password(email, password, client: Client):
    """The password step; raises Unauthorized with one message whatever was wrong."""
    user = authenticate(email, password)
    if user.is_service:
        # Only reached with the right password, so this reveals nothing to a guesser.
        raise Forbidden(messages.SERVICE_ACCOUNT_NO_WEB)
    return after_password(user, client)


def after_password(user, client: Client):
    """Password accepted: decide whether ``user`` is signed in now or needs another step."""
    return SignInStep(user=user, complete=True)
