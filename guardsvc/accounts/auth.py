"""One identity, two carriers: the session cookie and ``Authorization: Bearer``.

Both loaders live here. A request that carries an Authorization header is
judged by that header alone, so a stale cookie can never stand in for a bad
token, and CSRF is required exactly when the cookie is what authenticates.
"""
from functools import wraps

from flask import current_app, redirect, request, url_for
from flask_login import current_user

from guardsvc.accounts.models import User
from guardsvc.accounts.service import user_for_token
from guardsvc.doors import answers_json
from guardsvc.errors import Forbidden, Unauthorized
from guardsvc.extensions import csrf, db, login_manager

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def bearer_token():
    """The token of an ``Authorization: Bearer`` header, '' for another scheme, None without."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


@login_manager.user_loader
def load_user_from_session(user_key):
    if request.headers.get("Authorization") is not None:
        return None
    user_id, _, epoch = str(user_key).partition(":")
    if not user_id.isdigit() or not epoch.isdigit():
        return None
    user = db.session.get(User, int(user_id))
    if user is None or not user.is_active or user.session_epoch != int(epoch):
        return None
    return user


@login_manager.request_loader
def load_user_from_bearer(req):
    token = bearer_token()
    return user_for_token(token) if token else None


@login_manager.unauthorized_handler
def unauthorized():
    if answers_json():
        raise Unauthorized()
    # The sign-in page belongs to the signin feature, which names it in login_view.
    return redirect(url_for(login_manager.login_view, next=request.full_path.rstrip("?")))


def public_json(view):
    """Mark a JSON endpoint that takes no ambient credentials: no CSRF token needed."""
    view.csrf_exempt = True
    return view


def protect_against_csrf():
    """before_request: every unsafe request that the cookie could have authorised needs a CSRF token.

    Bearer-authenticated requests carry their own proof. On the API, a caller
    without a signed-in session has no ambient authority to abuse (the view
    answers 401, or it is a public endpoint); HTML form posts are always checked.
    """
    if request.method not in UNSAFE_METHODS or bearer_token() is not None:
        return
    view = current_app.view_functions.get(request.endpoint)
    if view is None or getattr(view, "csrf_exempt", False):
        return
    if answers_json() and not current_user.is_authenticated:
        return
    csrf.protect()


def roles_required(*roles):
    """Signed in (cookie or bearer) with one of ``roles``: else 401, or 403 for the wrong role."""
    def decorator(view):
        @wraps(view)
        def wrapper(*args, **kwargs):
            if not current_user.is_authenticated:
                return login_manager.unauthorized()
            if current_user.role not in roles:
                raise Forbidden()
            return view(*args, **kwargs)
        return wrapper
    return decorator


def init_auth(app):
    login_manager.session_protection = "basic"
    app.before_request(protect_against_csrf)
