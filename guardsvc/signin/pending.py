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


def begin(user, next_url):
    """Remember that ``user`` passed the password step (a fresh session: no fixation)."""
    end_session()  # whoever was signed in on this browser is not any more
    session[KEY] = {"user_id": user.id, "stamp": account_stamp(user), "email": user.email,
                    "next": next_url or "",
                    "expires": _now() + 60 * current_app.config["SIGNIN_CODE_MINUTES"]}


def current():
    """The pending state, or None when there is none or it has expired."""
    state = session.get(KEY)
    if not isinstance(state, dict) or state.get("expires", 0) < _now():
        return None
    return state


def clear():
    session.pop(KEY, None)


def begin_code_step(user, next_url):
    """Password accepted but a code is needed: remember the user and ask for the code."""
    begin(user, next_url)
    return redirect(url_for("signin_pages.code_form"), code=303)
