"""Domain exceptions and the one place that renders every failure.

On a JSON door (``doors.answers_json``) a failure is always JSON
``{success: false, message, errors?}``; elsewhere it is an Indonesian HTML
page in the site layout.
"""
import logging
from functools import wraps

from flask import current_app, jsonify, make_response, render_template, render_template_string, request
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DBAPIError, OperationalError, InterfaceError, TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from guardsvc import messages
from guardsvc.web.addresses import UnreadableForwardedAddress
from guardsvc.web.doors import answers_json
from guardsvc.web.redaction import redact
from guardsvc.web.stale_forms import stale_form_response
from guardsvc.storage.transaction import abandon, ends_with

log = logging.getLogger(__name__)


class GuardError(Exception):
    """Base of every failure the domain raises on purpose."""

    status = 400
    message = messages.BAD_REQUEST
    # A refusal undoes what the request wrote (guardsvc.storage.transaction). One that
    # is on record on purpose (a wrong password or code in the sign-in history,
    # a used code step) sets this, and the request commits those writes with it.
    keeps_writes = False

    def __init__(self, message=None, *, errors=None, extra=None, headers=None, keeps_writes=None):
        super().__init__(message or self.message)
        self.message = message or self.message
        self.errors = errors
        self.extra = extra or {}
        self.headers = headers or {}
        if keeps_writes is not None:
            self.keeps_writes = keeps_writes


class BadRequest(GuardError):
    status = 400


class Unauthorized(GuardError):
    status = 401
    message = messages.UNAUTHORIZED

    def __init__(self, message=None, **kwargs):
        kwargs.setdefault("headers", {"WWW-Authenticate": 'Bearer realm="guardsvc"'})
        super().__init__(message, **kwargs)


class Forbidden(GuardError):
    status = 403
    message = messages.FORBIDDEN


class NotFound(GuardError):
    status = 404
    message = messages.NOT_FOUND


class Conflict(GuardError):
    status = 409
    message = messages.CONFLICT


class InvalidState(Conflict):
    """The resource exists but is not in a state that allows the action."""


class UnsupportedMediaType(GuardError):
    status = 415
    message = messages.UNSUPPORTED_MEDIA


class ValidationFailed(GuardError):
    status = 422
    message = messages.VALIDATION_FAILED

    def __init__(self, errors, message=None):
        super().__init__(message, errors=errors)


class Cooldown(GuardError):
    """The client already has a pending ticket."""

    status = 429
    message = messages.TICKET_COOLDOWN

    def __init__(self, ticket_number):
        """``ticket_number`` None: a ticket is pending for this device, but the request does not
        show it is the one that submitted it, so its number is not told."""
        if ticket_number is None:
            super().__init__(messages.TICKET_COOLDOWN_NOT_SHOWN)
        else:
            super().__init__(extra={"ticket_number": ticket_number})
        self.ticket_number = ticket_number


class TooManyPending(GuardError):
    """Too many appeals from the caller's network are waiting (no ticket number: not theirs)."""

    status = 429
    message = messages.TICKET_NETWORK_CEILING


class RateLimited(GuardError):
    """A rate limit of the operation is spent for this client (guardsvc.ratelimits.limits)."""

    status = 429
    message = messages.RATE_LIMITED

    def __init__(self, retry_after):
        super().__init__(headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after


class TooManyAttempts(RateLimited):
    """The account has used up its wrong passwords or codes for now (signin/throttle.py)."""

    message = messages.SIGNIN_THROTTLED


class HashingBusy(GuardError):
    """Every password-hashing slot of this process is in use: try again in a moment (never a queue)."""

    status = 503
    message = messages.HASHING_BUSY

    def __init__(self):
        super().__init__(headers={"Retry-After": "1"})


class Blocked(GuardError):
    """The calling client is under an active block."""

    status = 403
    message = messages.BLOCKED

    def __init__(self, block, appeal_url):
        super().__init__(extra={"blocked": True, "reference": block.reference, "appeal_url": appeal_url})
        self.block = block
        self.appeal_url = appeal_url


HTTP_MESSAGES = {
    400: messages.BAD_REQUEST,
    401: messages.UNAUTHORIZED,
    403: messages.FORBIDDEN,
    404: messages.NOT_FOUND,
    405: messages.METHOD_NOT_ALLOWED,
    408: messages.BODY_TIMEOUT,
    409: messages.CONFLICT,
    413: messages.TOO_LARGE,
    415: messages.UNSUPPORTED_MEDIA,
    422: messages.VALIDATION_FAILED,
    429: messages.RATE_LIMITED,
    500: messages.INTERNAL_ERROR,
    503: messages.UNAVAILABLE,
}


def render_failure(status, message, *, errors=None, extra=None, headers=None, error=None):
    """Answer a failure as JSON on the API, as an Indonesian page elsewhere."""
    if answers_json():
        body = {"success": False, "message": message}
        if errors is not None:
            body["errors"] = errors
        body.update(extra or {})
        response = jsonify(body)
    else:
        response = make_response(_failure_page(status, message, errors=errors, extra=extra, error=error))
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _failure_page(status, message, *, errors, extra, error):
    template = "errors/blocked.html" if isinstance(error, Blocked) else "errors/error.html"
    try:
        return render_template(template, status=status, message=message, errors=errors,
                               error=error, extra=extra or {})
    except Exception:  # noqa: BLE001 - never fail while failing: a bare page still says it
        log.exception("could not render the %s page", status)
        return render_template_string(BARE_FAILURE_PAGE, status=status, message=message)


# The last resort when the site layout itself cannot be rendered: no layout, no links, no user.
BARE_FAILURE_PAGE = """<!doctype html><html lang="id"><head><meta charset="utf-8">
<title>guardsvc</title></head><body><main><p>{{ message }}</p><p>{{ status }}</p></main></body></html>"""


def _handle_guard_error(error):
    ends_with(error)
    return render_failure(error.status, error.message, errors=error.errors, extra=error.extra,
                          headers=error.headers, error=error)


def _handle_http_exception(error):
    status = error.code or 500
    headers = {}
    if status == 405 and getattr(error, "valid_methods", None):
        headers["Allow"] = ", ".join(error.valid_methods)
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="guardsvc"'
    message = HTTP_MESSAGES.get(status, messages.BAD_REQUEST if status < 500 else messages.INTERNAL_ERROR)
    return render_failure(status, message, headers=headers, error=error)


def _handle_unreadable_address(error):
    abandon()
    return render_failure(400, messages.FORWARDED_ADDRESS_INVALID, error=error)


def _handle_csrf_error(error):
    if not answers_json():
        try:
            stale = stale_form_response()
        except GuardError:  # the form's page is gone (an unknown link): the plain CSRF answer
            stale = None
        if stale is not None:
            return stale
    return render_failure(400, messages.CSRF_FAILED, error=error)


def is_connection_problem(error):
    """True when ``error`` means the database could not be reached (answer 503)."""
    if isinstance(error, (OperationalError, InterfaceError, PoolTimeout)):
        return True
    return isinstance(error, DBAPIError) and bool(getattr(error, "connection_invalidated", False))


def render_unexpected(error):
    """Answer an error nobody raised on purpose: 503 when the database is away, else 500."""
    return _handle_unexpected(error)


def _handle_unexpected(error):
    abandon()
    if is_connection_problem(error):
        log.error("database unavailable: %s", error.__class__.__name__, exc_info=True)
        _treat_visitor_as_anonymous()
        return render_failure(503, messages.UNAVAILABLE, headers={"Retry-After": "5"}, error=error)
    log.exception("unexpected error on %s %s", request.method, redact(request.path))
    return render_failure(500, messages.INTERNAL_ERROR, error=error)


def _treat_visitor_as_anonymous():
    """The page about a database outage must not load the signed-in user from that database again.

    Flask-Login loads ``current_user`` lazily, and every template asks for it;
    deciding now that this request has no user keeps the error path off the
    database. Nothing is written to the session: the user stays signed in. Flask-Login has no
    public way to say so (``logout_user`` writes the session); tests/project/test_dependency_reaches.py
    fails when its private one changes.
    """
    current_app.login_manager._update_request_context_with_user()


def _falls_back(handler):
    """A handler that fails itself (the page it renders reads the database that is down) answers like any other failure."""
    @wraps(handler)
    def handle(error):
        try:
            return handler(error)
        except Exception as failure:  # noqa: BLE001 - rendered by the one last handler
            return _handle_unexpected(failure)
    return handle


def register_error_handlers(app):
    """Send every failure through ``render_failure``."""
    app.register_error_handler(GuardError, _falls_back(_handle_guard_error))
    app.register_error_handler(CSRFError, _falls_back(_handle_csrf_error))
    app.register_error_handler(UnreadableForwardedAddress, _falls_back(_handle_unreadable_address))
    app.register_error_handler(HTTPException, _falls_back(_handle_http_exception))
    app.register_error_handler(Exception, _handle_unexpected)
