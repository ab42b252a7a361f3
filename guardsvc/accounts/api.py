"""JSON door for personal access tokens."""
from flask import Blueprint, current_app
from flask_login import current_user, login_required

from guardsvc import messages
from guardsvc.accounts import service
from guardsvc.accounts.auth import public_json
from guardsvc.accounts.schemas import TokenRequestSchema, TokenSchema
from guardsvc.extensions import db, limiter
from guardsvc.jsonio import json_body, ok
from guardsvc.schema_fields import load_or_raise

bp = Blueprint("accounts_api", __name__, url_prefix="/api/auth")
token_schema = TokenSchema()


def _auth_limit():
    return current_app.config["RATELIMIT_AUTH"]


@bp.post("/tokens")
@public_json
@limiter.limit(_auth_limit)
def create_token():
    """Exchange e-mail and password for a personal access token (shown once)."""
    data = load_or_raise(TokenRequestSchema(), json_body())
    user = service.authenticate(data["email"], data["password"])
    plain, record = service.create_token(user, data.get("name"))
    db.session.commit()
    return ok(201, message=messages.TOKEN_CREATED, token=plain, data=token_schema.dump(record))


@bp.get("/tokens")
@login_required
def list_tokens():
    """List the caller's own tokens (without their secret values)."""
    return ok(data=token_schema.dump(service.list_tokens(current_user), many=True))


@bp.delete("/tokens/<int(max=2147483647):token_id>")
@login_required
def revoke_token(token_id):
    """Revoke one of the caller's tokens."""
    record = service.revoke_token(current_user, token_id)
    db.session.commit()
    return ok(message=messages.TOKEN_REVOKED, data=token_schema.dump(record))
