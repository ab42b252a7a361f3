"""JSON door for personal access tokens (creating one is a sign-in: see signin.api)."""
from flask import Blueprint
from flask_login import current_user, login_required

from guardsvc import messages
from guardsvc.accounts import service
from guardsvc.accounts.schemas import TokenSchema
from guardsvc.web.doors import json_door
from guardsvc.web.jsonio import ok

bp = json_door(Blueprint("accounts_api", __name__, url_prefix="/api/auth"))
token_schema = TokenSchema()


@bp.get("/tokens")
@login_required
def list_tokens():
    """List the caller's own tokens (without their secret values)."""
    return ok(data=token_schema.dump(service.list_tokens(current_user), many=True))


@bp.delete("/tokens/<id:token_id>")
@login_required
def revoke_token(token_id):
    """Revoke one of the caller's tokens."""
    record = service.revoke_token(current_user, token_id)
    return ok(message=messages.TOKEN_REVOKED, data=token_schema.dump(record))
