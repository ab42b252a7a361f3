"""Public reference numbers: a prefix and 8 upper-case hex characters from a CSPRNG."""
import re
import secrets


# The public code kinds: ticket numbers (TKT-...) and block references (BLK-...).
TICKET_PREFIX = "TKT"
REFERENCE_PREFIX = "BLK"


def new_code(prefix):
    """``TKT-1A2B3C4D`` style code (32 random bits)."""
    return f"{prefix}-{secrets.token_hex(4).upper()}"


def code_pattern(prefix):
    """The regular expression of a code in its canonical form (as the API document states it too)."""
    return rf"^{prefix}-[0-9A-F]{{8}}$"


def parse_code(prefix, text):
    """Canonical form of a code typed by a person (spaces trimmed, any case), or None."""
    if not isinstance(text, str):
        return None
    candidate = text.strip().upper()
    return candidate if re.fullmatch(code_pattern(prefix), candidate) else None
