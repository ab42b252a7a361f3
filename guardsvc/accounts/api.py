"""JSON door for personal access tokens (creating one is a sign-in: see signin.api)."""
from flask import Blueprint
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts import service
from guardsvc.accounts.roles import ROLES
from guardsvc.accounts.schemas import TokenSchema
from guardsvc.web.doors import json_door
from guardsvc.web.jsonio import ok
from guardsvc.web.operations import RECORD_ID, Envelope, Tag, operation

bp = json_door(Blueprint("accounts_api", __name__, url_prefix="/api/auth"))
token_schema = TokenSchema()
TOKENS = Tag("Token akses", "Token bearer pribadi: dibuat dengan e-mail dan kata sandi, ditampilkan sekali.")


@bp.get("/tokens")
@operation("listTokens", "Daftar token akses saya", TOKENS, {200: Envelope(TokenSchema, many=True)}, roles=ROLES,
           description="Tanpa nilai token, hanya awalannya.")
def list_tokens():
    """List the caller's own tokens (without their secret values)."""
    return ok(data=token_schema.dump(service.list_tokens(current_user), many=True))


@bp.delete("/tokens/<id:token_id>")
@operation("revokeToken", "Cabut token akses", TOKENS, {200: Envelope(TokenSchema, message=True)}, roles=ROLES,
           path_params={"token_id": RECORD_ID}, errors={404: "Tidak ada token dengan id ini milik Anda."})
def revoke_token(token_id):
    """Revoke one of the caller's tokens."""
    record = service.revoke_token(current_user, token_id)
    return ok(message=messages.TOKEN_REVOKED, data=token_schema.dump(record))
