"""JSON door for signing in: a token in exchange for credentials, and the login history."""
from flask import Blueprint, request
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.auth import public_json, roles_required
from guardsvc.accounts.roles import ADMINS, PEOPLE
from guardsvc.accounts.schemas import TokenRequestSchema, TokenSchema
from guardsvc.web.doors import json_door
from guardsvc.web.identity import current_client
from guardsvc.web.jsonio import json_body, ok
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.signin import account
from guardsvc.signin.limits import code_limit, remember_outcome, sign_in_limit
from guardsvc.signin.schemas import AdminLoginEventSchema, LoginEventSchema, LoginQuerySchema
from guardsvc.signin.service import sign_in_for_token

bp = json_door(Blueprint("signin_api", __name__, url_prefix="/api"))


@bp.post("/auth/tokens")
@public_json
@sign_in_limit
@code_limit
def create_token():
    """Exchange e-mail, password (and ``otp`` on an untrusted device with 2FA, or ``email_code`` after
    ``verification_required``) for a token; ``password_breached`` asks the owner to change a listed password."""
    data = load_or_raise(TokenRequestSchema(), json_body())
    outcome = remember_outcome(sign_in_for_token(data["email"], data["password"], current_client(),
                                                 code=data.get("otp"), email_code=data.get("email_code"),
                                                 token_name=data.get("name")))
    if outcome.error:
        raise outcome.error
    return ok(201, message=messages.TOKEN_CREATED, token=outcome.token, password_breached=outcome.password_breached,
              data=TokenSchema().dump(outcome.token_record))


@bp.get("/auth/logins")
@roles_required(*PEOPLE)
def my_logins():
    """The caller's latest sign-in attempts, newest first."""
    return ok(data=LoginEventSchema().dump(account.recent_sign_ins(current_user, limit=50), many=True))


@bp.get("/admin/logins")
@roles_required(*ADMINS)
def all_logins():
    """Every account's sign-in attempts, newest first (administrators)."""
    query = load_or_raise(LoginQuerySchema(), request.args.to_dict())
    events = account.all_sign_ins(limit=query["limit"], result=query["result"])
    return ok(data=AdminLoginEventSchema().dump(events, many=True))
