"""A small client of a CrowdSec Local API: the bouncer's decision stream, the machine's login and delete.

Standard library only (``urllib``); every call is bounded by
``GUARDSVC_CROWDSEC_TIMEOUT_SECONDS``. Failures are ``LapiError``.
"""
import json
import urllib.error
import urllib.parse
import urllib.request

from flask import current_app


# The LAPI reads "name/version" from the User-Agent, and refuses a machine login without the slash.
USER_AGENT = "guardsvc/1"


class LapiError(Exception):
    """The LAPI could not be reached or did not answer as expected."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def is_configured(config):
    """True when the settings name a LAPI and a bouncer key (the source is opt-in)."""
    return bool(config["CROWDSEC_LAPI_URL"] and config["CROWDSEC_BOUNCER_KEY"])


def _call(method, path, *, query=None, headers=None, body=None):
    config = current_app.config
    url = config["CROWDSEC_LAPI_URL"] + path + ("?" + urllib.parse.urlencode(query) if query else "")
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Accept": "application/json", "User-Agent": USER_AGENT,
        **({"Content-Type": "application/json"} if data is not None else {}), **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=config["CROWDSEC_TIMEOUT_SECONDS"]) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        detail = exc.read(500).decode("utf-8", "replace")
        raise LapiError(f"{method} {path}: HTTP {exc.code} {detail}", status=exc.code) from exc
    except (OSError, ValueError) as exc:  # unreachable, timed out, or not JSON
        raise LapiError(f"{method} {path}: {exc}") from exc


def pull_decisions(startup):
    """``(new, deleted)`` decision lists (never None) from the stream, as the bouncer key."""
    config = current_app.config
    answer = _call("GET", "/v1/decisions/stream", headers={"X-Api-Key": config["CROWDSEC_BOUNCER_KEY"]}, query={
        "startup": "true" if startup else "false", "scopes": "ip,range", "dedup": "false",
        "origins": config["CROWDSEC_ORIGINS"]})
    if not isinstance(answer, dict):
        raise LapiError("the decision stream is not a JSON object")
    return answer.get("new") or [], answer.get("deleted") or []


def machine_token():
    """A JWT for the machine (``POST /v1/watchers/login``)."""
    config = current_app.config
    answer = _call("POST", "/v1/watchers/login", body={
        "machine_id": config["CROWDSEC_MACHINE_ID"], "password": config["CROWDSEC_MACHINE_PASSWORD"],
        "scenarios": []})
    if not isinstance(answer, dict) or not answer.get("token"):
        raise LapiError("the machine login answered no token")
    return answer["token"]


def delete_decision(token, decision_id):
    """Delete one decision by its id (never by IP: that removes every decision covering it); its count."""
    answer = _call("DELETE", f"/v1/decisions/{int(decision_id)}", headers={"Authorization": f"Bearer {token}"})
    return int((answer or {}).get("nbDeleted") or 0)
