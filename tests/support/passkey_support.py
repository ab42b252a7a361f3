"""Helpers for passkey tests through the pages: ask for options as the script does, send the answer."""
import json

from tests.support.pages_support import csrf_token
from tests.support.soft_authenticator import SoftAuthenticator

ORIGIN = "http://localhost:8000"  # the origin of the test settings' BASE_URL


def options(client, path, page):
    """POST ``path`` the way static/js/passkeys.js does (CSRF token of ``page`` in X-CSRFToken)."""
    reply = client.post(path, headers={"X-CSRFToken": csrf_token(client, page), "Accept": "application/json"})
    assert reply.status_code == 200 and reply.is_json, (reply.status_code, reply.get_data(as_text=True)[:300])
    return reply.get_json()


def send(client, path, page, answer, **fields):
    """POST the form the script submits: the browser's answer in ``credential``, plus ``fields``."""
    form = {"csrf_token": csrf_token(client, page), "credential": json.dumps(answer), **fields}
    return client.post(path, data=form)


def add_passkey(client, authenticator=None, name="Laptop"):
    """Add a passkey on /akun with a session that re-authenticated recently; returns the authenticator."""
    authenticator = authenticator or SoftAuthenticator(ORIGIN)
    created = authenticator.create(options(client, "/akun/passkey/opsi", "/akun"))
    reply = send(client, "/akun/passkey", "/akun", created, name=name)
    assert reply.status_code == 303, reply.get_data(as_text=True)[:500]
    return authenticator


def passwordless(client, authenticator, **get_options):
    """"Masuk dengan passkey" from /masuk."""
    answer = authenticator.get(options(client, "/masuk/passkey/opsi", "/masuk"), **get_options)
    return send(client, "/masuk/passkey", "/masuk", answer)
