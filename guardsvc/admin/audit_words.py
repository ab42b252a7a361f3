"""The audit log as people read it: every action named, every detail labelled and said in words.

Entries keep their keys (``ticket.approved``) and JSON details (``{"lifted_blocks": [...]}``)
for the API and for searching; pages show them through this module, in the reader's
language: a list as a list, a yes/no as a word, a time in local time, a stored reason
(guardsvc.stored_texts) in the reader's language. Each feature names the actions it
records (``Feature.audit_actions`` in its ``feature.py``); detail keys, shared by
several features, are named here. An action or detail key nobody named yet still
shows, as its key.
"""
import json
from datetime import datetime

from guardsvc import messages
from guardsvc.accounts.roles import ADMIN, SERVICE, USER
from guardsvc.features import each
from guardsvc.stored_texts import readable
from guardsvc.web.humantime import human_time

# In the order a reader wants them; details not named here follow, by key.
DETAILS = {
    "email": messages.AUDIT_EMAIL, "role": messages.AUDIT_ROLE, "old": messages.AUDIT_OLD, "new": messages.AUDIT_NEW,
    "kind": messages.AUDIT_KIND, "narrowed": messages.AUDIT_NARROWED, "reason": messages.AUDIT_REASON,
    "expires_at": messages.AUDIT_EXPIRES, "origin": messages.AUDIT_ORIGIN, "notes": messages.AUDIT_NOTES,
    "self_release": messages.AUDIT_SELF_RELEASE, "release": messages.AUDIT_RELEASE,
    "allowed_until": messages.AUDIT_ALLOWED_UNTIL,
    "lifted_blocks": messages.AUDIT_LIFTED_BLOCKS, "allow_entries": messages.AUDIT_ALLOW_ENTRIES,
    "site": messages.AUDIT_SITE, "tokens_revoked": messages.AUDIT_TOKENS_REVOKED,
    "token_name": messages.AUDIT_TOKEN_NAME, "token_id": messages.AUDIT_TOKEN_ID,
    "passkey": messages.AUDIT_PASSKEY, "passkey_id": messages.AUDIT_PASSKEY_ID, "purpose": messages.AUDIT_PURPOSE,
    "added": messages.AUDIT_IMPORT_ADDED, "existing": messages.AUDIT_IMPORT_EXISTING,
    "duplicates": messages.AUDIT_IMPORT_DUPLICATES, "bad_lines": messages.AUDIT_IMPORT_BAD_LINES,
    "lines": messages.AUDIT_IMPORT_LINES,
    "stored": messages.AUDIT_COUNT_STORED, "presented": messages.AUDIT_COUNT_PRESENTED,
    "country": messages.AUDIT_COUNTRY, "entries": messages.AUDIT_ENTRIES, "source": messages.AUDIT_SOURCE,
    "min_count": messages.AUDIT_MIN_COUNT,
}

_CHOICES = {
    "kind": {"ip": messages.AUDIT_KIND_IP, "cidr": messages.AUDIT_KIND_CIDR, "device": messages.AUDIT_KIND_DEVICE},
    "purpose": {"second_factor": messages.AUDIT_PURPOSE_SECOND_FACTOR,
                "passwordless": messages.AUDIT_PURPOSE_PASSWORDLESS},
    "origin": {"crowdsec": "CrowdSec"},
    # why a sign-in asked for an e-mailed code (guardsvc.signin.models.VERIFY_REASONS); other reasons are free text
    "reason": {"new_country": messages.AUDIT_REASON_NEW_COUNTRY, "fast_travel": messages.AUDIT_REASON_FAST_TRAVEL},
}
_ROLES = {USER: messages.AUDIT_ROLE_USER, ADMIN: messages.AUDIT_ROLE_ADMIN, SERVICE: messages.AUDIT_ROLE_SERVICE}
for _key in ("role", "old", "new"):  # old and new are roles: the only change audited with both is a role's
    _CHOICES[_key] = _ROLES


def action_label(action):
    """What an entry records, in words ("Tiket disetujui"); an unnamed action as its key."""
    label = each("audit_actions").get(action)
    return str(label) if label is not None else action


def _when(value):
    try:
        return human_time(datetime.fromisoformat(value.rstrip("Z")))
    except (TypeError, ValueError):
        return value


def _value(key, value):
    """One detail's value as people read it."""
    if key == "expires_at":
        return str(messages.AUDIT_UNTIL_LIFTED) if value is None else _when(value)
    if key == "allowed_until" and value is not None:
        return _when(value)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(messages.AUDIT_YES if value else messages.AUDIT_NO)
    if isinstance(value, list):
        if key == "allow_entries":
            value = [messages.AUDIT_ALLOW_ENTRY.format(id=item) for item in value]
        return ", ".join(str(item) for item in value) if value else str(messages.AUDIT_NONE)
    if isinstance(value, dict):
        return ", ".join(f"{name}: {_value(name, item)}" for name, item in value.items())
    choice = _CHOICES.get(key, {}).get(value)
    if choice is not None:
        return str(choice)
    return readable(value) if key == "reason" else str(value)


def detail_lines(details):
    """An entry's stored details (JSON text) as ``[(label, value)]`` in words, named ones first."""
    if not details:
        return []
    try:
        found = json.loads(details)
    except ValueError:
        return [(str(messages.AUDIT_DETAILS), details)]
    if not isinstance(found, dict):
        return [(str(messages.AUDIT_DETAILS), _value("", found))]
    order = list(DETAILS)
    keys = sorted(found, key=lambda key: (order.index(key) if key in DETAILS else len(order), key))
    return [(str(DETAILS[key]) if key in DETAILS else key, _value(key, found[key])) for key in keys]
