"""The half-signed-in state between the password step and the code step.

It lives in the (signed) session cookie: who passed the password step, a
stamp of the account's password at that moment (signin.service.account_stamp),
where to go afterwards, and until when the code may be entered. Nobody is signed in while it exists.

A copy of the cookie replayed from other addresses or workers gains no extra
guesses: wrong codes are counted per account in the login history
(``signin/throttle.py``), wherever they come from.
"""
import calendar

from flask import current_app, redirect, session, url_for

from guardsvc.storage import clock
from guardsvc.accounts.sessions import end_session
from guardsvc.signin.service import account_stamp

KEY = "signin_pending"


def _now():
    return calendar.timegm(clock.utcnow().utctimetuple())


CODE_STEP, EMAIL_STEP = "code", "email"


def begin(user, next_url, *, step=CODE_STEP, minutes=None, **facts):
    """Remember that ``user`` passed the password step (a fresh session: no fixation).

    ``step``: what is asked next, the code from the authenticator app (``code``) or the
    e-mailed code (``email``); ``facts``: what the next step needs to know (JSON values).
    """
    end_session()  # whoever was signed in on this browser is not any more
    minutes = minutes or current_app.config["SIGNIN_CODE_MINUTES"]
    session[KEY] = {"user_id": user.id, "stamp": account_stamp(user), "email": user.email,
                    "next": next_url or "", "step": step, "expires": _now() + 60 * minutes, **facts}


def current(step=CODE_STEP):
    """The pending state of ``step``, or None when there is none, it has expired or another step is pending."""
    state = session.get(KEY)
    if not isinstance(state, dict) or state.get("expires", 0) < _now():
        return None
    return state if state.get("step", CODE_STEP) == step else None


def clear():
    session.pop(KEY, None)


def begin_code_step(user, next_url, **facts):
    """Password accepted but a code is needed: remember the user and ask for the code."""
    begin(user, next_url, **facts)
    return redirect(url_for("signin_pages.code_form"), code=303)


def begin_email_step(user, next_url, minutes, **facts):
    """Password accepted from somewhere new: remember the user and ask for the e-mailed code."""
    begin(user, next_url, step=EMAIL_STEP, minutes=minutes, **facts)
    return redirect(url_for("signin_pages.email_code_form"), code=303)
