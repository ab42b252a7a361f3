"""JSON door for the login history."""
from flask import Blueprint, request
from flask_login import current_user

from guardsvc.accounts.auth import roles_required
from guardsvc.jsonio import ok
from guardsvc.schema_fields import load_or_raise
from guardsvc.signin import account
from guardsvc.signin.schemas import AdminLoginEventSchema, LoginEventSchema, LoginQuerySchema

bp = Blueprint("signin_api", __name__, url_prefix="/api")


@bp.get("/auth/logins")
@roles_required("user", "admin")
def my_logins():
    """The caller's latest sign-in attempts, newest first."""
    return ok(data=LoginEventSchema().dump(account.recent_sign_ins(current_user, limit=50), many=True))


@bp.get("/admin/logins")
@roles_required("admin")
def all_logins():
    """Every account's sign-in attempts, newest first (administrators)."""
    query = load_or_raise(LoginQuerySchema(), request.args.to_dict())
    events = account.all_sign_ins(limit=query["limit"], result=query["result"])
    return ok(data=AdminLoginEventSchema().dump(events, many=True))
