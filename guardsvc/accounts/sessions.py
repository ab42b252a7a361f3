"""Starting and ending the browser session of a signed-in person."""
from flask import session
from flask_login import login_user, logout_user


def start_session(user):
    """A fresh session for ``user``: nothing from before sign-in carries over (no fixation)."""
    session.clear()
    login_user(user)


def end_session():
    """Sign out of this browser: the identity and everything else the session held."""
    logout_user()
    session.clear()
