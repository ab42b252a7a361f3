"""HTML door for trusted devices: the buttons and forms on the account page."""
from flask import Blueprint, request
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.account_page import Section, back_to_section, render_account_page
from guardsvc.accounts.auth import reauthentication_required, roles_required
from guardsvc.accounts.roles import PEOPLE
from guardsvc.web.identity import current_client, issue_trust_cookie
from guardsvc.pages.forms import load_form
from guardsvc.places.geoip import locate
from guardsvc.places.names import label_of
from guardsvc.trust import service
from guardsvc.trust.signin_trust import new_trust_secret, skips_code_step
from guardsvc.trust.schemas import DeviceRenameSchema, SaveMyIpSchema
from guardsvc.web.useragent import describe_user_agent

bp = Blueprint("trust_pages", __name__, url_prefix="/akun/perangkat")

FIELDS = ("device_name",)


def devices_part(user, client):
    """What the trusted-devices part of /akun shows: each record, whether it is this device, and where its
    address is now (the GeoIP database, guardsvc.places)."""
    devices = [(record, service.is_this_device(record, client), label_of(locate(record.ip_address)))
               for record in service.list_trusted(user)]
    return {"devices": devices,
            # No "trust this device" offer where this browser already skips the code here: its one
            # entry is named (and renamed) in the list instead.
            "trusted_here": skips_code_step(user.id, client.ip_address, client.trust_secret),
            "this_entry": next((record for record, here, _ in devices if here and record.is_active), None)}


ACCOUNT_SECTION = Section("perangkat", "trust/_account_devices.html", devices_part, order=10)


def _back_to_devices(message):
    return back_to_section("perangkat", message)


@bp.app_template_filter("browser_os")
def browser_os_filter(user_agent):
    return describe_user_agent(user_agent) or messages.UNKNOWN


@bp.post("")
@roles_required(*PEOPLE)
@reauthentication_required(anchor="perangkat", keep=("trust", FIELDS))
def trust_this_device():
    """"Percayai perangkat ini": trust the current IP and device, and give this browser its trust secret.

    Under ``reauthentication_required``: the password and, with 2FA, a second
    factor in this browser within ``REAUTH_MINUTES`` earn the secret.
    """
    data, errors, values = load_form(SaveMyIpSchema(), request.form, FIELDS)
    if errors:
        return render_account_page(422, errors=errors, values=values, error_form="trust")
    secret, secret_hash = new_trust_secret()
    record, created = service.trust_device(current_user, current_client(), data.get("device_name"),
                                           secret_hash=secret_hash)
    issue_trust_cookie(secret)
    template = messages.TRUSTED_IP_SAVED if created else messages.TRUSTED_IP_REFRESHED
    return _back_to_devices(template.format(ip=record.ip_address))


@bp.post("/<id:record_id>/nama")
@roles_required(*PEOPLE)
def rename_device(record_id):
    """Rename one of the person's trusted devices."""
    record = service.get_own(current_user, record_id)
    data, errors, values = load_form(DeviceRenameSchema(), request.form, FIELDS)
    if errors:
        return render_account_page(422, errors=errors, values=values, error_form=f"rename-{record.id}")
    service.rename(record, data["device_name"])
    return _back_to_devices(messages.DEVICE_RENAMED)


@bp.post("/<id:record_id>/cabut")
@roles_required(*PEOPLE)
def revoke_device(record_id):
    """Stop trusting one of the person's devices (the record stays, marked revoked)."""
    service.revoke(service.get_own(current_user, record_id))
    return _back_to_devices(messages.TRUSTED_IP_REVOKED)
