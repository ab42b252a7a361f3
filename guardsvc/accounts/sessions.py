"""Starting and ending the browser session of a signed-in person.

The signed Flask cookie carries only the random key of a server-side session
record (``guardsvc.sessions``); deleting the record ends the session for every
copy of the cookie at once.
"""
from flask import session
from flask_login import login_user, logout_user

from guardsvc.accounts.auth import current_session, remember_session
from guardsvc.sessions import service as sessions
from guardsvc.web.locale import current_language, keep_language_of

# Flask-Login keeps what names the signed-in identity under this key.
SESSION_KEY = "_user_id"


def start_session(user, client, *, reauthenticated=True, second_factor=False):
    """A fresh session record and cookie for ``user``: nothing from before carries over (no fixation).

    ``reauthenticated`` and ``second_factor`` say what the sign-in proved (sessions.service).
    """
    previous = current_session()
    if previous is not None:
        sessions.end_session(previous)
    session.clear()
    plain, record = sessions.start_session(user, client, reauthenticated=reauthenticated,
                                           second_factor=second_factor)
    login_user(user)
    keep_language_of(user, current_language())
    session[SESSION_KEY] = plain
    remember_session(record)
    return record


def end_session():
    """Sign out of this browser: the session record, the identity and everything the cookie held."""
    record = current_session()
    if record is not None:
        sessions.end_session(record)
    logout_user()
    session.clear()
