"""JSON door for trusted IPs."""
from flask import Blueprint
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.auth import authenticated_by_bearer, current_session
from guardsvc.accounts.roles import HOST_CHECKERS, PEOPLE
from guardsvc.web.doors import json_door
from guardsvc.web.errors import Forbidden
from guardsvc.web.identity import current_client, issue_trust_cookie
from guardsvc.web.jsonio import ok
from guardsvc.web.operations import RECORD_ID, Envelope, Link, Tag, operation
from guardsvc.sessions.service import is_recently_reauthenticated
from guardsvc.trust import service
from guardsvc.trust.signin_trust import new_trust_secret
from guardsvc.trust.schemas import SaveMyIpSchema, TrustCheckQuerySchema, TrustCheckSchema, TrustedIpSchema

bp = json_door(Blueprint("trust_api", __name__, url_prefix="/api/security/trusted-ips"))
record_schema = TrustedIpSchema()
TRUST = Tag("IP terpercaya", "IP dan perangkat yang dipercayai pemilik akun; cek oleh aplikasi induk.")
RECORD = Envelope(TrustedIpSchema, message=True)
REVOKE_IT = {"revokeTrustedIp": Link("revokeTrustedIp", {"id": "$response.body#/data/id"})}


@bp.post("/save-my-ip")
@operation("saveMyIp", "Percayai IP dan perangkat saat ini", TRUST,
           {201: RECORD, 200: RECORD}, roles=PEOPLE, body=SaveMyIpSchema, links=REVOKE_IT,
           description="201 saat pertama kali, 200 saat (pengguna, IP, perangkat) yang sama disimpan lagi.")
def save_my_ip(data):
    """Trust the caller's current IP and device for the signed-in user.

    A bearer token gives host-check trust only. A browser session must have
    re-authenticated recently (password, and a second factor with 2FA); it
    then also gets its trust secret, as the account page's button gives it.
    """
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
@operation("listTrustedIps", "Daftar IP terpercaya milik saya", TRUST,
           {200: Envelope(TrustedIpSchema, many=True)}, roles=PEOPLE,
           description="Termasuk yang sudah dicabut (`is_active` false).")
def list_trusted_ips():
    """List the caller's trusted IP records (revoked ones included)."""
    return ok(data=record_schema.dump(service.list_trusted(current_user), many=True))


@bp.delete("/<id:record_id>")
@operation("revokeTrustedIp", "Cabut IP terpercaya", TRUST,
           {200: RECORD}, roles=PEOPLE, path_params={"record_id": RECORD_ID},
           errors={404: "Tidak ada rekaman dengan id ini milik Anda."})
def revoke_trusted_ip(record_id):
    """Revoke one of the caller's trusted IP records."""
    record = service.revoke(service.get_own(current_user, record_id))
    return ok(message=messages.TRUSTED_IP_REVOKED, data=record_schema.dump(record))


@bp.get("/check")
@operation("checkTrustedIp", "Cek apakah (pengguna, IP, perangkat) terpercaya", TRUST,
           {200: Envelope(TrustCheckSchema)}, roles=HOST_CHECKERS, query=TrustCheckQuerySchema, keep_blank_query=True)
def check_trusted_ip(query):
    """Host check: is this (user, IP, device) trusted?"""
    return ok(data={"trusted": service.is_trusted(query["user_id"], query["ip"], query["device_id"])})
