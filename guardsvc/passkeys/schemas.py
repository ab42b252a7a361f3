"""Shapes of passkey forms: the browser's answer (JSON text from the script) and a name."""
from guardsvc.passkeys.models import NAME_MAX
from guardsvc.web.schema_fields import BaseSchema, Text

# The browser's answer: a few hundred bytes to a few KiB of JSON (an attestation may carry certificates).
CREDENTIAL_MAX = 32 * 1024


class PasskeyAnswerSchema(BaseSchema):
    """A form carrying the browser's passkey answer (``credential``), as the script fills it in."""

    credential = Text(required=True, max_length=CREDENTIAL_MAX)


class NewPasskeySchema(PasskeyAnswerSchema):
    """Adding a passkey on /akun: the browser's answer and an optional name."""

    name = Text(max_length=NAME_MAX, load_default=None, blank_as_none=True, allow_none=True)
