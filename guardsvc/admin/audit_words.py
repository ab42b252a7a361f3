"""The audit log as people read it: every action named, every detail labelled and said in words.

Entries keep their keys (``ticket.approved``) and JSON details (``{"lifted_blocks": [...]}``)
for the API and for searching; pages show them through this module, in the reader's
language: a list as a list, a yes/no as a word, a time in local time, a stored reason
(guardsvc.stored_texts) in the reader's language. An action or detail key nobody named
yet still shows, as its key.
"""
import json
from datetime import datetime

from guardsvc import messages
from guardsvc.accounts.roles import ADMIN, SERVICE, USER
from guardsvc.stored_texts import readable
from guardsvc.web.humantime import human_time

ACTIONS = {
    "ticket.approved": messages.AUDIT_TICKET_APPROVED,
    "ticket.rejected": messages.AUDIT_TICKET_REJECTED,
    "ticket.claimed": messages.AUDIT_TICKET_CLAIMED,
    "ticket.released": messages.AUDIT_TICKET_RELEASED,
    "ticket.admin": messages.AUDIT_TICKET_MESSAGE,
    "ticket.note": messages.AUDIT_TICKET_NOTE,
    "tickets.group_decided": messages.AUDIT_GROUP_DECIDED,
    "block.created": messages.AUDIT_BLOCK_CREATED,
    "block.lifted": messages.AUDIT_BLOCK_LIFTED,
    "block.self_released": messages.AUDIT_BLOCK_SELF_RELEASED,
    "blocks.imported": messages.AUDIT_BLOCKLIST_IMPORTED,
    "block.self_release_changed": messages.AUDIT_BLOCK_SELF_RELEASE_CHANGED,
    "allow.created": messages.AUDIT_ALLOW_CREATED,
    "allow.removed": messages.AUDIT_ALLOW_REMOVED,
    "user.created": messages.AUDIT_USER_CREATED,
    "user.role_set": messages.AUDIT_USER_ROLE_SET,
    "user.disabled": messages.AUDIT_USER_DISABLED,
    "user.enabled": messages.AUDIT_USER_ENABLED,
    "user.password_set": messages.AUDIT_USER_PASSWORD_SET,
    "user.2fa_reset": messages.AUDIT_USER_2FA_RESET,
    "token.revoked": messages.AUDIT_TOKEN_REVOKED,
    "passkey.added": messages.AUDIT_PASSKEY_ADDED,
    "passkey.removed": messages.AUDIT_PASSKEY_REMOVED,
    "passkey.sign_count_back": messages.AUDIT_PASSKEY_COUNT_BACK,
    "passkey.used": messages.AUDIT_PASSKEY_USED,
    "signin.email_code_sent": messages.AUDIT_SIGNIN_CODE_SENT,
    "signin.email_code_passed": messages.AUDIT_SIGNIN_CODE_PASSED,
    "passwords.breached_loaded": messages.AUDIT_BREACHED_LOADED,
}

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
    "decision": messages.AUDIT_DECISION, "decided": messages.AUDIT_DECIDED, "lift_block": messages.AUDIT_LIFT_BLOCK,
    "group": messages.AUDIT_GROUP,
}

_CHOICES = {
    "kind": {"ip": messages.AUDIT_KIND_IP, "cidr": messages.AUDIT_KIND_CIDR, "device": messages.AUDIT_KIND_DEVICE},
    "purpose": {"second_factor": messages.AUDIT_PURPOSE_SECOND_FACTOR,
                "passwordless": messages.AUDIT_PURPOSE_PASSWORDLESS},
    "origin": {"crowdsec": "CrowdSec"},
    "decision": {"approved": messages.TICKET_APPROVED_LABEL, "rejected": messages.TICKET_REJECTED_LABEL},
    # why a sign-in asked for an e-mailed code (guardsvc.signin.models.VERIFY_REASONS); other reasons are free text
    "reason": {"new_country": messages.AUDIT_REASON_NEW_COUNTRY, "fast_travel": messages.AUDIT_REASON_FAST_TRAVEL},
}
_ROLES = {USER: messages.AUDIT_ROLE_USER, ADMIN: messages.AUDIT_ROLE_ADMIN, SERVICE: messages.AUDIT_ROLE_SERVICE}
for _key in ("role", "old", "new"):  # old and new are roles: the only change audited with both is a role's
    _CHOICES[_key] = _ROLES


def action_label(action):
    """What an entry records, in words ("Tiket disetujui"); an unnamed action as its key."""
    label = ACTIONS.get(action)
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
