"""JSON door for trusted IPs."""
from flask import Blueprint, request
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.auth import authenticated_by_bearer, current_session, roles_required
from guardsvc.accounts.roles import HOST_CHECKERS, PEOPLE
from guardsvc.web.doors import json_door
from guardsvc.web.errors import Forbidden
from guardsvc.web.identity import current_client, issue_trust_cookie
from guardsvc.web.jsonio import json_body, ok
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.sessions.service import is_recently_reauthenticated
from guardsvc.trust import service
from guardsvc.trust.signin_trust import new_trust_secret
from guardsvc.trust.schemas import SaveMyIpSchema, TrustCheckQuerySchema, TrustedIpSchema

bp = json_door(Blueprint("trust_api", __name__, url_prefix="/api/security/trusted-ips"))
record_schema = TrustedIpSchema()


@bp.post("/save-my-ip")
@roles_required(*PEOPLE)
def save_my_ip():
    """Trust the caller's current IP and device for the signed-in user.

    A bearer token gives host-check trust only. A browser session must have
    re-authenticated recently (password, and a second factor with 2FA); it
    then also gets its trust secret, as the account page's button gives it.
    """
    data = load_or_raise(SaveMyIpSchema(), json_body())
    by_browser = not authenticated_by_bearer()
    if by_browser and not is_recently_reauthenticated(current_session()):
        raise Forbidden(messages.REAUTH_NEEDED_API)
    secret, secret_hash = new_trust_secret() if by_browser else (None, None)
    record, created = service.trust_device(current_user, current_client(), data.get("device_name"),
                                           secret_hash=secret_hash)
    if secret:
        issue_trust_cookie(secret)
    template = messages.TRUSTED_IP_SAVED if created else messages.TRUSTED_IP_REFRESHED
    return ok(201 if created else 200, message=template.format(ip=record.ip_address),
              data=record_schema.dump(record))


@bp.get("")
@roles_required(*PEOPLE)
def list_trusted_ips():
    """List the caller's trusted IP records (revoked ones included)."""
    return ok(data=record_schema.dump(service.list_trusted(current_user), many=True))


@bp.delete("/<id:record_id>")
@roles_required(*PEOPLE)
def revoke_trusted_ip(record_id):
    """Revoke one of the caller's trusted IP records."""
    record = service.revoke(service.get_own(current_user, record_id))
    return ok(message=messages.TRUSTED_IP_REVOKED, data=record_schema.dump(record))


@bp.get("/check")
@roles_required(*HOST_CHECKERS)
def check_trusted_ip():
    """Host check: is this (user, IP, device) trusted?"""
    query = load_or_raise(TrustCheckQuerySchema(), request.args.to_dict())
    return ok(data={"trusted": service.is_trusted(query["user_id"], query["ip"], query["device_id"])})
