"""The failures every JSON endpoint shares, as the API document describes them.

Mirrors what the shared machinery really answers: ``errors.render_failure``
bodies, the 401/403 of the role check, the block guard's 403, body parsing
(``jsonio.json_body``), identity headers, the rate-limit headers (``guardsvc.ratelimits.limits``), and the
500/503 of the error handler. Which of them an operation can give follows
from its declaration (``guardsvc.web.operations.Operation``).
"""
from dataclasses import dataclass, field

from marshmallow import Schema, fields

from guardsvc.web.operations import (ANY_ROLE, APPEAL_ERROR, BLOCK_REFERENCE_PATTERN, BLOCKED_ERROR,
                                     COOLDOWN_ERROR, ERROR, OTP_REQUIRED_ERROR, TICKET_NUMBER_PATTERN,
                                     VALIDATION_ERROR, VERIFICATION_REQUIRED_ERROR, Failure)

UNSAFE_METHODS = frozenset({"post", "put", "patch", "delete"})


class ErrorSchema(Schema):
    """Every failure: ``{success: false, message, errors?}``."""

    success = fields.Boolean(required=True, metadata={"enum": [False]})
    message = fields.String(required=True, metadata={"description": "Penjelasan dalam bahasa Indonesia; dalam bahasa Inggris bila "
                                                                "Accept-Language memilih en."})
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()),
                         metadata={"description": "Pesan per kolom, parameter atau header."})


class ValidationErrorSchema(ErrorSchema):
    """A validation failure always says which field failed."""

    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True,
                         metadata={"description": "Pesan per kolom, parameter atau header."})


class BlockedErrorSchema(ErrorSchema):
    """A blocked client: the block's reference and where to appeal."""

    blocked = fields.Boolean(required=True, metadata={"enum": [True]})
    reference = fields.String(required=True, metadata={"pattern": BLOCK_REFERENCE_PATTERN})
    appeal_url = fields.String(required=True, metadata={"example": "/banding?ref=BLK-1A2B3C4D"})


class AppealErrorSchema(ErrorSchema):
    """The way back is the appeal form: the block's reference and the form's address (self-release refused)."""

    reference = fields.String(required=True, metadata={"pattern": BLOCK_REFERENCE_PATTERN})
    appeal_url = fields.String(required=True, metadata={"example": "/banding?ref=BLK-1A2B3C4D"})


class CooldownErrorSchema(ErrorSchema):
    """The client already has a pending ticket: its number, when the request comes from the ticket's
    address or with the device cookie that submitted it (a device id alone may be guessed)."""

    ticket_number = fields.String(metadata={"pattern": TICKET_NUMBER_PATTERN})


class OtpRequiredErrorSchema(ErrorSchema):
    """The account needs a two-step code from this client."""

    otp_required = fields.Boolean(required=True, metadata={"enum": [True]})


class VerificationRequiredErrorSchema(ErrorSchema):
    """A password sign-in from somewhere new: the code e-mailed to the account's owner completes it."""

    verification_required = fields.Boolean(required=True, metadata={"enum": [True]})
    email_delivery = fields.String(required=True, metadata={
        "enum": ["queued", "sent", "retrying", "failed"],
        "description": "Sejauh mana e-mail kode sampai: `queued` (menunggu dikirim), `sent` (diterima server "
                       "e-mail), `retrying` (server e-mail belum dapat dihubungi; terus dicoba, kode tidak hilang), "
                       "`failed` (menyerah; minta kode baru dengan masuk lagi setelah kode berakhir)."})
    code_expires_at = fields.String(required=True, metadata={"format": "date-time",
                                                             "description": "Sampai kapan kode berlaku (UTC)."})


ERROR_SCHEMAS = {ERROR: ErrorSchema, VALIDATION_ERROR: ValidationErrorSchema, BLOCKED_ERROR: BlockedErrorSchema,
                 COOLDOWN_ERROR: CooldownErrorSchema, APPEAL_ERROR: AppealErrorSchema,
                 OTP_REQUIRED_ERROR: OtpRequiredErrorSchema,
                 VERIFICATION_REQUIRED_ERROR: VerificationRequiredErrorSchema}


def _header(description, schema, required=False):
    return {"description": description, "required": required, "schema": schema}


SECONDS = {"type": "integer", "minimum": 0}
WWW_AUTHENTICATE = _header("Skema yang diterima: `Bearer`.", {"type": "string", "pattern": "^Bearer"}, True)
# Header components: every answer of a rate-limited operation carries them while limiting is on.
RATE_LIMIT_HEADER_COMPONENTS = {
    "X-RateLimit-Limit": _header("Jumlah permintaan yang diizinkan dalam jendela batas ini.", SECONDS),
    "X-RateLimit-Remaining": _header("Sisa permintaan dalam jendela ini.", SECONDS),
    "X-RateLimit-Reset": _header("Waktu Unix (detik) saat jendela ini berakhir.", SECONDS),
    "Retry-After": _header("Detik sampai jendela batas ini berakhir.", SECONDS),
}
RATE_LIMIT_HEADERS = {name: {"$ref": f"#/components/headers/{name}"} for name in RATE_LIMIT_HEADER_COMPONENTS}
RETRY_AFTER_REQUIRED = _header("Detik sampai boleh mencoba lagi.", SECONDS, True)
RATE_LIMIT_NOTE = " Selama pembatasan aktif (bawaan), setiap jawaban membawa header X-RateLimit-*."


@dataclass
class Answer:
    """One status of one operation: why it happens, the body shapes, the headers."""

    reasons: list = field(default_factory=list)
    shapes: list = field(default_factory=list)
    headers: dict = field(default_factory=dict)

    def add(self, reason, *shapes):
        self.reasons.append(reason)
        self.shapes.extend(shape for shape in shapes or (ERROR,) if shape not in self.shapes)


def failures(operation, method, guarded):
    """``{status: Answer}`` for every failure ``operation`` can answer to ``method``."""
    answers = {}

    def add(status, reason, *shapes):
        answers.setdefault(status, Answer()).add(reason, *shapes)

    # Every request reads the client's address first (web.addresses.require_readable_address).
    add(400, "Di belakang proksi tepercaya (GUARDSVC_PROXY_COUNT), X-Forwarded-For tidak berisi alamat IP "
             "yang terbaca.")
    if operation.body is not None:
        add(400, "Isi bukan JSON yang valid atau bukan objek JSON.")
        add(408, "Isi tidak tiba utuh dalam GUARDSVC_BODY_TIMEOUT_SECONDS.")
        add(413, "Isi lebih dari 64 KiB (juga isi chunked).")
        add(415, "Isi tidak kosong dengan Content-Type selain application/json.")
        add(422, "Isi tidak lolos validasi; `errors` per kolom.", VALIDATION_ERROR)
    if operation.query is not None:
        add(422, "Parameter kueri tidak lolos validasi; `errors` per parameter.", VALIDATION_ERROR)
    if guarded or operation.identity:
        add(422, "Header X-Device-Id atau X-Local-Ip tidak valid; `errors` per header.", VALIDATION_ERROR)
    if operation.roles is not None:
        add(401, "Belum masuk, atau token bearer salah, kedaluwarsa atau dicabut.")
        answers[401].headers["WWW-Authenticate"] = WWW_AUTHENTICATE
        if method in UNSAFE_METHODS:
            add(400, "Masuk lewat cookie tanpa header X-CSRFToken yang benar.")
        if set(operation.roles) != set(ANY_ROLE):
            add(403, "Peran akun ini tidak diizinkan.")
    if guarded:
        add(403, "Klien (IP atau perangkat) diblokir; body membawa `blocked`, `reference` dan "
                 "`appeal_url`. Administrator tidak pernah diblokir.", BLOCKED_ERROR)
    if operation.rate_limited:
        add(429, "Batas permintaan terlampaui; coba lagi setelah `Retry-After` detik.")
        answers[429].headers["Retry-After"] = RETRY_AFTER_REQUIRED
    for status, failure in operation.errors.items():
        if isinstance(failure, str):
            failure = Failure(failure)
        add(status, failure.description, *failure.shapes)
        if status == 429 and "Retry-After" in answers[429].headers:
            # Another reason for 429 (a cooldown) comes without Retry-After.
            answers[429].headers["Retry-After"] = RATE_LIMIT_HEADERS["Retry-After"]
    if operation.database:
        add(503, "Basis data tidak terjangkau; coba lagi sebentar lagi.")
        answers[503].headers["Retry-After"] = _header("Detik yang disarankan sebelum mencoba lagi.", SECONDS)
    add(500, "Kesalahan tak terduga (tanpa rincian internal).")
    return dict(sorted(answers.items()))


def schema_ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def failure_response(answer, extra_headers):
    """The response object of one failure status."""
    refs = [schema_ref(shape) for shape in answer.shapes]
    # anyOf, not oneOf: the shapes extend one another (a cooldown 429 without its ticket number is
    # also a plain Error), so an answer may match several.
    schema = refs[0] if len(refs) == 1 else {"anyOf": refs}
    response = {"description": " ".join(answer.reasons),
                "content": {"application/json": {"schema": schema}}}
    headers = {**extra_headers, **answer.headers}
    if headers:
        response["headers"] = headers
    return response
