"""Passkeys: adding and removing them on /akun, ``flask users passkeys``."""
import guardsvc.passkeys.cli  # noqa: F401  (adds ``users passkeys`` to the accounts' command group)
from guardsvc import messages
from guardsvc.features import Feature
from guardsvc.passkeys import views

FEATURE = Feature(
    "passkeys",
    blueprints=(views.bp,),
    account_sections=(views.ACCOUNT_SECTION,),
    audit_actions={
        "passkey.added": messages.AUDIT_PASSKEY_ADDED,
        "passkey.removed": messages.AUDIT_PASSKEY_REMOVED,
        "passkey.sign_count_back": messages.AUDIT_PASSKEY_COUNT_BACK,
        "passkey.used": messages.AUDIT_PASSKEY_USED,
    },
)
