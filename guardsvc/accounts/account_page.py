"""The /akun page, shared by the account and trusted-device doors (forms re-render it)."""
from flask import render_template
from flask_login import current_user

from guardsvc.accounts.service import list_tokens
from guardsvc.identity import current_client
from guardsvc.trust.service import is_this_device, is_trusted, list_trusted


def render_account_page(status=200, *, errors=None, values=None, error_form=None, new_token=None):
    """The account page; ``error_form`` says which form ``errors`` belong to (e.g. "rename-7")."""
    client = current_client()
    devices = [(record, is_this_device(record, client)) for record in list_trusted(current_user)]
    body = render_template("accounts/account.html", devices=devices, tokens=list_tokens(current_user),
                           client=client, trusted_here=is_trusted(current_user.id, client.ip_address,
                                                                  client.device_id),
                           errors=errors, values=values or {}, error_form=error_form,
                           new_token=new_token)
    headers = {"Cache-Control": "no-store"} if new_token else {}
    return body, status, headers
