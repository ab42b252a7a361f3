"""JSON door for signing in: a token in exchange for credentials, and the login history."""
from flask import Blueprint
from flask_login import current_user
from marshmallow import fields

from guardsvc import messages
from guardsvc.accounts.api import TOKENS
from guardsvc.accounts.roles import ADMINS, PEOPLE
from guardsvc.accounts.schemas import TokenRequestSchema, TokenSchema
from guardsvc.web.doors import json_door
from guardsvc.web.identity import current_client
from guardsvc.web.jsonio import ok
from guardsvc.web.operations import (ERROR, OTP_REQUIRED_ERROR, VERIFICATION_REQUIRED_ERROR, Envelope, Failure, Link,
                                     Tag, operation)
from guardsvc.signin import account
from guardsvc.signin.limits import code_limit, remember_outcome, sign_in_limit
from guardsvc.signin.schemas import AdminLoginEventSchema, LoginEventSchema, LoginQuerySchema
from guardsvc.signin.service import sign_in_for_token

bp = json_door(Blueprint("signin_api", __name__, url_prefix="/api"))
SIGN_INS = Tag("Riwayat masuk", "Setiap upaya masuk: waktu, IP, perangkat, hasil.")


@bp.post("/auth/tokens")
@operation("createToken", "Buat token akses dengan e-mail dan kata sandi", TOKENS,
           {201: Envelope(TokenSchema, message=True, name="TokenCreatedResponse",
                          extra={"token": fields.String(required=True, metadata={
                              "description": "Token itu sendiri; hanya ditampilkan kali ini."}),
                              "password_breached": fields.Boolean(required=True, metadata={
                                  "description": "Kata sandi benar tetapi ada dalam daftar kata sandi "
                                                 "yang bocor: minta pemiliknya segera menggantinya."})})},
           body=TokenRequestSchema, limits=(sign_in_limit, code_limit),
           links={"revokeToken": Link("revokeToken", {"id": "$response.body#/data/id"})},
           errors={401: Failure("E-mail atau kata sandi salah; atau akun dengan verifikasi dua langkah "
                                "memerlukan `otp` dari klien ini (`otp_required: true`); atau akun tanpa "
                                "verifikasi dua langkah masuk dari tempat baru dan memerlukan `email_code` "
                                "(`verification_required: true`).",
                                (ERROR, OTP_REQUIRED_ERROR, VERIFICATION_REQUIRED_ERROR))},
           description="Akun dengan verifikasi dua langkah menyertakan `otp` (kode TOTP atau kode "
                       "pemulihan), kecuali IP dan perangkat ini terpercaya (dengan id perangkat yang sama). "
                       "Setelah 10 kata sandi salah atau 5 kode salah untuk satu akun dalam 15 menit (dari IP "
                       "mana pun), setiap upaya ditolak 429 dengan `Retry-After`, walau kata sandi atau kode "
                       "benar. Kode salah juga dibatasi per IP (429). `otp` hanya berisi angka ASCII atau kode "
                       "pemulihan; selain itu 422 sebelum kata sandi diperiksa.\n\n"
                       "Akun tanpa verifikasi dua langkah yang masuk dari negara yang tidak dipakainya dalam 180 "
                       "hari, atau dari tempat yang terlalu jauh untuk dicapai sejak masuk terakhir (lebih dari "
                       "1.000 km/jam), menerima 401 `verification_required` dan kode 8 angka lewat e-mail "
                       "(berlaku 15 menit, 5 percobaan, hanya dari alamat IP yang sama). Kirim permintaan yang "
                       "sama lagi dengan `email_code`. Kode salah dihitung seperti kata sandi salah. Selama kode "
                       "masih berlaku, permintaan tanpa `email_code` tidak mengirim e-mail kedua.")
def create_token(data):
    """Exchange e-mail, password (and ``otp`` on an untrusted device with 2FA, or ``email_code`` after
    ``verification_required``) for a token; ``password_breached`` asks the owner to change a listed password."""
    outcome = remember_outcome(sign_in_for_token(data["email"], data["password"], current_client(),
                                                 code=data.get("otp"), email_code=data.get("email_code"),
                                                 token_name=data.get("name")))
    if outcome.error:
        raise outcome.error
    return ok(201, message=messages.TOKEN_CREATED, token=outcome.token, password_breached=outcome.password_breached,
              data=TokenSchema().dump(outcome.token_record))


@bp.get("/auth/logins")
@operation("listMyLogins", "Riwayat masuk saya", SIGN_INS, {200: Envelope(LoginEventSchema, many=True)},
           roles=PEOPLE, description="50 upaya terakhir, terbaru dahulu.")
def my_logins():
    """The caller's latest sign-in attempts, newest first."""
    return ok(data=LoginEventSchema().dump(account.recent_sign_ins(current_user, limit=50), many=True))


@bp.get("/admin/logins")
@operation("listAllLogins", "Riwayat masuk semua akun", SIGN_INS, {200: Envelope(AdminLoginEventSchema, many=True)},
           roles=ADMINS, query=LoginQuerySchema, keep_blank_query=True,
           description="Terbaru dahulu, dapat disaring menurut hasil.")
def all_logins(query):
    """Every account's sign-in attempts, newest first (administrators)."""
    events = account.all_sign_ins(limit=query["limit"], result=query["result"])
    return ok(data=AdminLoginEventSchema().dump(events, many=True))
