"""One identity, two carriers: the server-side session (cookie) and ``Authorization: Bearer``.

Both loaders live here. The bearer token counts only on JSON doors (``/api/...``):
pages and form posts ignore ``Authorization`` entirely, so a leaked token never
drives the account page. On a JSON door a valid token speaks for itself; a
missing or invalid one leaves the cookie to decide. CSRF is waived only for a
request that a valid token authenticated.
"""
from functools import wraps

from flask import current_app, g, redirect, request, session, url_for
from flask_login import current_user

from guardsvc.accounts.service import user_for_token
from guardsvc.web.doors import answers_json
from guardsvc.web.errors import Unauthorized
from guardsvc.web.operations import refuse_caller
from guardsvc.extensions import csrf, login_manager
from guardsvc.sessions import service as sessions
from guardsvc.web.headers import request_header

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The confirmation page of the signin feature (signin.reauth_views), named like login_view.
REAUTH_VIEW = "reauth_pages.confirm"
_BEARER_USER = "guardsvc_bearer_user"
_SESSION = "guardsvc_user_session"
# What a person typed into a form that had to wait for a re-authentication (a device's name, say).
_WAITING_FORM = "guardsvc_waiting_form"
_WAITING_VALUE_MAX = 200


def bearer_token():
    """The token of an ``Authorization: Bearer`` header, '' for another scheme, None without."""
    header = request_header("Authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def _bearer_user():
    """The owner of a valid bearer token on a JSON door (looked up once per request), else None."""
    if not answers_json():
        return None
    if _BEARER_USER not in g:
        token = bearer_token()
        setattr(g, _BEARER_USER, user_for_token(token) if token else None)
    return g.get(_BEARER_USER)


@login_manager.user_loader
def load_user_from_session(session_key):
    user = _bearer_user()
    if user is not None:
        return user
    record = sessions.find_session(session_key)
    if record is None:
        return None
    setattr(g, _SESSION, record)
    return record.user


@login_manager.request_loader
def load_user_from_bearer(_request):
    return _bearer_user()


def authenticated_by_bearer():
    """True when a valid bearer token (not the cookie) authenticated this request."""
    return current_user.is_authenticated and g.get(_BEARER_USER) is not None


def current_session():
    """The session record that authenticated this request; None for a token or nobody."""
    if not current_user.is_authenticated or authenticated_by_bearer():
        return None
    return g.get(_SESSION)


def remember_session(record):
    """Make ``record`` this request's session (it was just started)."""
    setattr(g, _SESSION, record)


@login_manager.unauthorized_handler
def unauthorized():
    if answers_json():
        raise Unauthorized()
    # The sign-in page belongs to the signin feature, which names it in login_view.
    return redirect(url_for(login_manager.login_view, next=request.full_path.rstrip("?")))


def protect_against_csrf():
    """before_request: every unsafe request that the cookie could have authorised needs a CSRF token.

    A public JSON operation (declared without roles) acts for no account: it is exempt.

    A request authenticated by a valid bearer token carries its own proof; any
    other Authorization header waives nothing. Form posts are always checked.
    On the API, a caller without a signed-in session has no ambient authority
    to abuse (the view answers 401, or it is a public endpoint).
    """
    if request.method not in UNSAFE_METHODS:
        return
    view = current_app.view_functions.get(request.endpoint)
    if view is None or getattr(view, "csrf_exempt", False):
        return
    if answers_json() and (authenticated_by_bearer() or not current_user.is_authenticated):
        return
    csrf.protect()


def roles_required(*roles):
    """A page for accounts with one of ``roles``: else the sign-in page (401 on JSON), or 403.

    A JSON operation names its roles in its declaration instead (``operation(..., roles=...)``).
    """
    def decorator(view):
        @wraps(view)
        def wrapper(*args, **kwargs):
            refused = refuse_caller(roles)
            if refused is not None:
                return refused
            return view(*args, **kwargs)
        return wrapper
    return decorator


def reauthentication_required(back="account_pages.account", anchor=None, keep=None):
    """For a page that makes a sensitive change: the password (and code) entered recently.

    Without a re-authentication within ``REAUTH_MINUTES`` on this session the
    person is sent to the confirmation page, which brings them back to the page
    ``back`` (an endpoint; ``anchor`` its section) to try again. ``keep`` is
    ``(form name, fields)``: what was typed in those fields waits in the signed
    session and fills that form again when the page is back (``waiting_form``),
    so nothing needs typing twice. Goes under ``roles_required``.
    """
    def decorator(view):
        @wraps(view)
        def wrapper(*args, **kwargs):
            if not sessions.is_recently_reauthenticated(current_session()):
                if keep is not None and request.method == "POST":
                    form_name, fields = keep
                    session[_WAITING_FORM] = {"form": form_name, "values": {
                        field: request.form.get(field, "")[:_WAITING_VALUE_MAX] for field in fields}}
                target = url_for(back, _anchor=anchor)
                return redirect(url_for(REAUTH_VIEW, next=target), code=303)
            return view(*args, **kwargs)
        return wrapper
    return decorator


def waiting_form():
    """``(form name, values)`` typed before a re-authentication, once (then forgotten); ``(None, {})`` without."""
    waiting = session.pop(_WAITING_FORM, None)
    if not isinstance(waiting, dict):
        return None, {}
    return waiting.get("form"), dict(waiting.get("values") or {})


def init_auth(app):
    login_manager.session_protection = "basic"
    app.before_request(protect_against_csrf)
