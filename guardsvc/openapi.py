"""The OpenAPI 3 document of every JSON endpoint, built from the same marshmallow schemas."""
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, current_app, jsonify
from marshmallow import Schema, fields

from guardsvc.accounts.schemas import TokenRequestSchema, TokenSchema
from guardsvc.appeals.schemas import (TicketDecisionSchema, TicketStatusSchema, TicketSubmitSchema,
                                      TicketSubmittedSchema)
from guardsvc.identity import DEVICE_HEADER, LOCAL_IP_HEADER
from guardsvc.schema_fields import Timestamp
from guardsvc.signin.models import RESULTS as LOGIN_RESULTS
from guardsvc.signin.schemas import AdminLoginEventSchema, LoginEventSchema
from guardsvc.trust.schemas import SaveMyIpSchema, TrustedIpSchema

bp = Blueprint("openapi", __name__)


class ErrorSchema(Schema):
    success = fields.Boolean(required=True)
    message = fields.String(required=True)
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))


class CooldownSchema(ErrorSchema):
    ticket_number = fields.String()


class BlockedSchema(ErrorSchema):
    blocked = fields.Boolean()
    reference = fields.String()
    appeal_url = fields.String()


def envelope(name, data=None, many=False, **extra):
    """A success body ``{success, message?, data}`` as a named schema class."""
    attrs = {"success": fields.Boolean(required=True), "message": fields.String(), **extra}
    if data is not None:
        nested = fields.Nested(data)
        attrs["data"] = fields.List(nested, required=True) if many else fields.Nested(data, required=True)
    return Schema.from_dict(attrs, name=name)


class TrustCheckSchema(Schema):
    trusted = fields.Boolean(required=True)


ERRORS = {
    400: "JSON rusak / token CSRF tidak valid", 401: "Belum masuk atau token tidak valid",
    403: "Tidak berizin atau klien diblokir", 404: "Tidak ditemukan", 405: "Metode tidak diizinkan",
    409: "Keadaan tidak memungkinkan", 413: "Isi terlalu besar", 415: "Content-Type bukan JSON",
    422: "Validasi gagal", 429: "Batas permintaan / masa tunggu", 500: "Kesalahan server",
    503: "Basis data tidak terjangkau",
}
COMMON = (404, 405, 429, 500, 503)
BODY = (400, 413, 415, 422)
AUTH = (401, 403)
IDENTITY_HEADERS = [
    {"in": "header", "name": DEVICE_HEADER, "required": False,
     "schema": {"type": "string", "pattern": r"^[A-Za-z0-9._:-]{1,64}$"}},
    {"in": "header", "name": LOCAL_IP_HEADER, "required": False,
     "schema": {"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}},
]
SECURED = [{"bearerAuth": []}, {"cookieAuth": []}]


def operation(summary, success, status=200, body=None, errors=(), params=(), secured=True, extra=None,
              also=()):
    """One operation: its success answer(s) and every failure it can give, all JSON."""
    responses = {str(code): {"description": "Berhasil", "content": {"application/json": {"schema": success}}}
                 for code in (status, *also)}
    for code in sorted(set(COMMON) | set(errors) | (set(AUTH) if secured else set())):
        schema = {429: "Cooldown", 403: "Blocked"}.get(code, "Error")
        responses[str(code)] = {"description": ERRORS[code],
                                "content": {"application/json": {"schema": schema}}}
    op = {"summary": summary, "responses": responses, "parameters": list(params)}
    if body is not None:
        op["requestBody"] = {"required": False, "content": {"application/json": {"schema": body}}}
    op["security"] = SECURED if secured else []
    op.update(extra or {})
    return op


def path_param(name, schema):
    return {"in": "path", "name": name, "required": True, "schema": schema}


def query_param(name, schema, required=False):
    return {"in": "query", "name": name, "required": required, "schema": schema}


TICKET_PARAM = path_param("ticketNumber", {"type": "string"})
ID_PARAM = path_param("id", {"type": "integer", "minimum": 0})


def build_spec():
    """Assemble the document (cheap; rebuilt on each request of it)."""
    plugin = MarshmallowPlugin()
    spec = APISpec(title="guardsvc", version="1.0.0", openapi_version="3.0.3", plugins=[plugin],
                   info={"description": "Perangkat terpercaya dan banding pembukaan blokir."},
                   servers=[{"url": current_app.config["BASE_URL"]}])
    plugin.map_to_openapi_type(Timestamp, "string", "date-time")
    spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    spec.components.security_scheme("cookieAuth", {"type": "apiKey", "in": "cookie",
                                                   "name": current_app.config["SESSION_COOKIE_NAME"]})
    for name, schema in (("Error", ErrorSchema), ("Cooldown", CooldownSchema), ("Blocked", BlockedSchema)):
        spec.components.schema(name, schema=schema)
    for path, operations in paths().items():
        spec.path(path=path, operations=operations)
    return spec.to_dict()


def paths():
    from guardsvc.admin.openapi_paths import paths as admin_paths
    from guardsvc.blocks.openapi_paths import paths as forward_auth_paths

    trusted = envelope("TrustedIpResponse", TrustedIpSchema)
    return {
        **admin_paths(),
        **forward_auth_paths(),
        "/api/security/trusted-ips/save-my-ip": {"post": operation(
            "Percayai IP dan perangkat saat ini", trusted, 201, SaveMyIpSchema, BODY + (400,),
            IDENTITY_HEADERS, extra={"description": "201 saat pertama, 200 saat diperbarui."},
            also=(200,))},
        "/api/security/trusted-ips": {"get": operation(
            "Daftar IP terpercaya milik saya", envelope("TrustedIpList", TrustedIpSchema, many=True))},
        "/api/security/trusted-ips/{id}": {"delete": operation(
            "Cabut IP terpercaya", trusted, params=[ID_PARAM], errors=(400,))},
        "/api/security/trusted-ips/check": {"get": operation(
            "Cek apakah (user, IP, perangkat) terpercaya", envelope("TrustCheck", TrustCheckSchema),
            errors=(422,), params=[query_param("user_id", {"type": "integer"}, True),
                                   query_param("ip", {"type": "string"}, True),
                                   query_param("device_id", {"type": "string"})])},
        "/api/guard/unblock-tickets/submit": {"post": operation(
            "Ajukan permohonan pembukaan blokir",
            envelope("TicketSubmitted", TicketSubmittedSchema, ticket_number=fields.String()),
            201, TicketSubmitSchema, BODY, IDENTITY_HEADERS, secured=False)},
        "/api/guard/unblock-tickets/check/{ticketNumber}": {"get": operation(
            "Cek status tiket", envelope("TicketStatus", TicketStatusSchema), params=[TICKET_PARAM],
            secured=False)},
        "/api/guard/unblock-tickets/{ticketNumber}/respond": {"post": operation(
            "Putuskan tiket (administrator)", envelope("TicketDecided", TicketStatusSchema),
            body=TicketDecisionSchema, errors=BODY + (409,), params=[TICKET_PARAM])},
        "/api/auth/tokens": {
            "post": operation("Buat token akses dengan e-mail dan kata sandi",
                              envelope("TokenCreated", TokenSchema, token=fields.String()), 201,
                              TokenRequestSchema, BODY + (401,), secured=False, extra={
                                  "description": "Akun dengan verifikasi dua langkah: sertakan `otp` "
                                  "(kode TOTP atau kode pemulihan) kecuali IP dan perangkat ini "
                                  "terpercaya. Tanpa/salah kode: 401 dengan `otp_required: true`."}),
            "get": operation("Daftar token akses saya", envelope("TokenList", TokenSchema, many=True)),
        },
        "/api/auth/tokens/{id}": {"delete": operation(
            "Cabut token akses", envelope("TokenRevoked", TokenSchema), params=[ID_PARAM],
            errors=(400,))},
        "/api/auth/logins": {"get": operation(
            "Riwayat masuk saya", envelope("LoginList", LoginEventSchema, many=True))},
        "/api/admin/logins": {"get": operation(
            "Riwayat masuk semua akun (administrator)",
            envelope("AdminLoginList", AdminLoginEventSchema, many=True), errors=(422,),
            params=[query_param("limit", {"type": "integer", "minimum": 1, "maximum": 500}),
                    query_param("result", {"type": "string", "enum": list(LOGIN_RESULTS)})])},
    }


@bp.get("/api/openapi.json")
def openapi_document():
    """The OpenAPI 3 document."""
    return jsonify(build_spec())
