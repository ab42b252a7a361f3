"""How a feature describes its JSON endpoints for the API document.

Each feature lists one ``Operation`` per endpoint in its ``openapi_paths.py``
(the probes and the document itself: ``guardsvc/openapi/paths.py``), and
``guardsvc/openapi/document.py`` turns the lists into ``/api/openapi.json``. Path,
path parameters, method and whether the block guard runs come from the app
itself; every status the shared machinery can answer (401/403 for the roles,
403 ``blocked`` on guarded routes, 400/413/415/422 for a body, 422 for bad
identity headers, 429 with its headers, 500, 503) is added from the flags
below. An operation names only what is its own: its success answers, its
domain failures (404, 409, ...), and its links.
"""
from dataclasses import dataclass, field
from typing import Any, Mapping

from guardsvc.storage.codes import REFERENCE_PREFIX, TICKET_PREFIX, code_pattern

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
    """One JSON endpoint: what it is for, who may call it, what it answers.

    ``endpoint`` is the Flask endpoint (``"<blueprint>.<function>"``); ``method``
    is needed only when its route serves several. ``roles`` None means public.
    ``identity`` marks an unguarded endpoint that still reads X-Device-Id /
    X-Local-Ip (guarded ones always do). ``responses`` maps each success status
    to an Envelope, a plain JSON schema dict, or None for an empty answer.
    """

    endpoint: str
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
    rate_limited: bool = False
    database: bool = True
    path_params: Mapping[str, PathParam] = field(default_factory=dict)
    links: Mapping[str, Link] = field(default_factory=dict)


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
