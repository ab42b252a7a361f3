"""JSON door for personal access tokens."""
from flask import Blueprint, request
from flask_login import current_user, login_required

from guardsvc import messages
from guardsvc.accounts import service
from guardsvc.accounts.auth import public_json
from guardsvc.accounts.schemas import TokenRequestSchema, TokenSchema
from guardsvc.extensions import configured_limit, limiter
from guardsvc.identity import current_client
from guardsvc.jsonio import json_body, ok
from guardsvc.schema_fields import load_or_raise
from guardsvc.signin.limits import code_attempt_limit, remember_outcome
from guardsvc.signin.service import sign_in_for_token

bp = Blueprint("accounts_api", __name__, url_prefix="/api/auth")
token_schema = TokenSchema()


def _email_in_body():
    body = request.get_json(silent=True)
    email = body.get("email") if isinstance(body, dict) else None
    return email if isinstance(email, str) else ""


@bp.post("/tokens")
@public_json
@limiter.limit(configured_limit("RATELIMIT_AUTH"))
@code_attempt_limit(_email_in_body)
def create_token():
    """Exchange e-mail, password (and ``otp`` on an untrusted device with 2FA) for a token."""
    data = load_or_raise(TokenRequestSchema(), json_body())
    outcome = remember_outcome(sign_in_for_token(data["email"], data["password"], current_client(),
                                                 code=data.get("otp"), token_name=data.get("name")))
    if outcome.error:
        raise outcome.error
    return ok(201, message=messages.TOKEN_CREATED, token=outcome.token,
              data=token_schema.dump(outcome.token_record))


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
    return ok(message=messages.TOKEN_REVOKED, data=token_schema.dump(record))
