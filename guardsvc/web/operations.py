"""How a JSON view declares itself: one decorator, the one source of its API document entry.

``@operation(...)`` goes under the route decorator and says what the view takes
(``body=`` / ``query=`` schemas, loaded and validated before the view runs and
passed to it as ``data`` / ``query``), who may call it (``roles=``, checked
first: 401, or 403 for another role), which rate limits it spends (``limits=``,
in order) and what it answers. ``guardsvc/openapi/document.py`` builds
``/api/openapi.json`` from these declarations and the app itself: path, path
parameters, method and whether the block guard runs come from the routes;
every status the shared machinery can answer (401/403 for the roles, 403
``blocked`` on guarded routes, 400/413/415/422 for a body, 422 for bad identity
headers, 429 with its headers, 500, 503) is added from the declaration. An
operation names only what is its own: its success answers, its domain failures
(404, 409, ...), and its links.
"""
import inspect
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, Mapping

from flask import request
from flask_login import current_user

from guardsvc.extensions import login_manager
from guardsvc.storage.codes import REFERENCE_PREFIX, TICKET_PREFIX, code_pattern
from guardsvc.web.errors import Forbidden
from guardsvc.web.jsonio import json_body
from guardsvc.web.listing import load_query
from guardsvc.web.schema_fields import load_or_raise

OPERATION = "guardsvc_operation"  # the attribute of a declared view that holds its Operation

# Every role an account can have; roles=ANY_ROLE means "any signed-in account".
ANY_ROLE = ("user", "admin", "service")

# Shapes a failure body may take (components of the document).
ERROR = "Error"
VALIDATION_ERROR = "ValidationError"
BLOCKED_ERROR = "BlockedError"
COOLDOWN_ERROR = "CooldownError"
OTP_REQUIRED_ERROR = "OtpRequiredError"
VERIFICATION_REQUIRED_ERROR = "VerificationRequiredError"
APPEAL_ERROR = "AppealError"
GROUP_NOT_DECIDED_ERROR = "GroupNotDecidedError"


@dataclass(frozen=True)
class Tag:
    """A feature, as the document groups operations."""

    name: str
    description: str


@dataclass(frozen=True)
class Envelope:
    """A success body ``{success: true, message?, data?, ...extra}``.

    ``data`` is the marshmallow schema of the payload (a list of it with
    ``many``). The envelope's component name is ``name``, or the payload's
    name + ``Response`` / ``ListResponse``: never the payload's own name.
    """

    data: type | None = None
    many: bool = False
    message: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)
    name: str | None = None


@dataclass(frozen=True)
class Failure:
    """A failure an operation answers on its own (not one the shared machinery adds)."""

    description: str
    shapes: tuple[str, ...] = (ERROR,)


@dataclass(frozen=True)
class PathParam:
    """How the document names and constrains one path variable of a route."""

    name: str
    schema: Mapping[str, Any] | None = None  # None: from the route's converter
    description: str = ""
    example: Any = None


@dataclass(frozen=True)
class Link:
    """A value of this answer that another operation takes (OpenAPI link)."""

    operation_id: str
    parameters: Mapping[str, str]
    description: str = ""


@dataclass(frozen=True)
class Operation:
    """One JSON endpoint: what it is for, who may call it, what it takes and answers.

    ``roles`` None means public (and, as it acts for no signed-in account, no
    CSRF token is asked). ``identity`` marks an unguarded endpoint that still
    reads X-Device-Id / X-Local-Ip (guarded ones always do). ``responses`` maps
    each success status to an Envelope, a plain JSON schema dict, or None for an
    empty answer. ``limits`` are the ``guardsvc.ratelimits.limits.Limit`` buckets
    it spends. ``method`` is needed only when its route serves several.
    ``keep_blank_query``: blank query values reach the schema (by default a blank
    value is no value: an empty filter is no filter). ``endpoint`` is filled in
    by the document from the route (``"<blueprint>.<function>"``).
    """

    operation_id: str
    summary: str
    tag: Tag
    responses: Mapping[int, Any]
    method: str | None = None
    description: str = ""
    roles: tuple[str, ...] | None = None
    body: type | None = None
    query: type | None = None
    errors: Mapping[int, str | Failure] = field(default_factory=dict)
    identity: bool = False
    limits: tuple = ()
    database: bool = True
    path_params: Mapping[str, PathParam] = field(default_factory=dict)
    links: Mapping[str, Link] = field(default_factory=dict)
    keep_blank_query: bool = False
    endpoint: str | None = None

    @property
    def rate_limited(self):
        return bool(self.limits)


def operation(operation_id, summary, tag, responses, **options):
    """Declare the JSON view below: the document's entry and what runs before the view.

    Before the view, in this order: the role check, each rate limit, the body
    (``json_body`` loaded by ``body``, passed as ``data``), the query string
    (loaded by ``query``, passed as ``query``). Schemas are built once here.
    """
    declared = Operation(operation_id, summary, tag, responses, **options)
    roles, limits = declared.roles, tuple(declared.limits)
    body, query = _instance(declared.body), _instance(declared.query)
    keep_blank = declared.keep_blank_query

    def decorator(view):
        _check_parameters(view, body is not None, query is not None)
        if roles is None and not limits and body is None and query is None:
            target = view
        else:
            @wraps(view)
            def target(*args, **kwargs):
                if roles is not None:
                    refused = refuse_caller(roles)
                    if refused is not None:
                        return refused
                for limit in limits:
                    limit.apply()
                if body is not None:
                    kwargs["data"] = load_or_raise(body, json_body())
                if query is not None:
                    kwargs["query"] = load_query(query, request.args, keep_blank)
                return view(*args, **kwargs)
        if roles is None:
            target.csrf_exempt = True  # read by accounts.auth.protect_against_csrf
        setattr(target, OPERATION, declared)
        return target
    return decorator


def declared_operation(view):
    """The Operation a view was declared with, or None."""
    return getattr(view, OPERATION, None)


def _check_parameters(view, takes_body, takes_query):
    """A view declared with ``body=`` takes ``data``, with ``query=`` takes ``query``: said at import, not at a request."""
    parameters = inspect.signature(view).parameters
    for name, needed in (("data", takes_body), ("query", takes_query)):
        if needed != (name in parameters):
            raise TypeError(f"{view.__qualname__}: declared {'with' if needed else 'without'} "
                            f"{'body' if name == 'data' else 'query'}=, so it must {'' if needed else 'not '}"
                            f"take a {name!r} parameter")


def _instance(schema):
    return schema() if isinstance(schema, type) else schema


def refuse_caller(roles):
    """None when the caller is signed in (cookie or bearer) with one of ``roles``.

    Else 401 (Flask-Login's unauthorized handler: JSON on a JSON door, the
    sign-in page elsewhere) or 403 for another role.
    """
    if not current_user.is_authenticated:
        return login_manager.unauthorized()
    if current_user.role not in roles:
        raise Forbidden()
    return None


TICKET_NUMBER_PATTERN = code_pattern(TICKET_PREFIX)
BLOCK_REFERENCE_PATTERN = code_pattern(REFERENCE_PREFIX)
TICKET_NUMBER = PathParam(
    "ticketNumber", {"type": "string", "pattern": TICKET_NUMBER_PATTERN},
    "Nomor tiket `TKT-` + 8 heksadesimal (spasi di tepi dan huruf kecil juga diterima).",
    "TKT-1A2B3C4D")
BLOCK_REFERENCE = PathParam(
    "reference", {"type": "string", "pattern": BLOCK_REFERENCE_PATTERN},
    "Referensi blokir `BLK-` + 8 heksadesimal.", "BLK-1A2B3C4D")
RECORD_ID = PathParam("id", description="Nomor rekaman.")
