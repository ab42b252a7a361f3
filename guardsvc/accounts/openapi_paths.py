"""Personal access tokens in the API document."""
from marshmallow import fields

from guardsvc.accounts.schemas import TokenRequestSchema, TokenSchema
from guardsvc.openapi.operations import (ANY_ROLE, ERROR, OTP_REQUIRED_ERROR, RECORD_ID, VERIFICATION_REQUIRED_ERROR,
                                         Envelope, Failure, Link, Operation, Tag)

TOKENS = Tag("Token akses", "Token bearer pribadi: dibuat dengan e-mail dan kata sandi, ditampilkan sekali.")

OPERATIONS = (
    Operation("signin_api.create_token", "createToken", "Buat token akses dengan e-mail dan kata sandi",
              TOKENS, {201: Envelope(TokenSchema, message=True, name="TokenCreatedResponse",
                                     extra={"token": fields.String(required=True, metadata={
                                         "description": "Token itu sendiri; hanya ditampilkan kali ini."}),
                                     "password_breached": fields.Boolean(required=True, metadata={
                                         "description": "Kata sandi benar tetapi ada dalam daftar kata sandi "
                                                        "yang bocor: minta pemiliknya segera menggantinya."})})},
              body=TokenRequestSchema, rate_limited=True,
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
                          "masih berlaku, permintaan tanpa `email_code` tidak mengirim e-mail kedua."),
    Operation("accounts_api.list_tokens", "listTokens", "Daftar token akses saya", TOKENS,
              {200: Envelope(TokenSchema, many=True)}, roles=ANY_ROLE,
              description="Tanpa nilai token, hanya awalannya."),
    Operation("accounts_api.revoke_token", "revokeToken", "Cabut token akses", TOKENS,
              {200: Envelope(TokenSchema, message=True)}, roles=ANY_ROLE,
              path_params={"token_id": RECORD_ID}, errors={404: "Tidak ada token dengan id ini milik Anda."}),
)
