"""The one password rule (web change, reset, command line).

At least ``MIN_LENGTH`` characters, not the account's e-mail address (nor the
part before the ``@``), not one of the 10,000 most common passwords, and not on
the breached-password list the operator loaded (accounts/breached.py). The
list ships as package data (``common_passwords.txt``, one a line, most common
first): the top of the ranked password list of zxcvbn 4.5.0 (MIT licence),
itself drawn from leaked password collections. Comparison ignores case.
"""
from functools import lru_cache
from importlib.resources import files

from guardsvc import messages
from guardsvc.accounts.breached import is_breached
from guardsvc.web.errors import ValidationFailed

MIN_LENGTH = 10
MAX_LENGTH = 256
COMMON_PASSWORDS_FILE = "common_passwords.txt"


@lru_cache(maxsize=1)
def common_passwords():
    """The shipped list, lower-cased, as a set (read once per process)."""
    text = files(__package__).joinpath(COMMON_PASSWORDS_FILE).read_text(encoding="utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines() if line.strip())


def password_problems(password, email):
    """Why ``password`` breaks the rule for the account ``email`` (Indonesian), or [] when it does not."""
    if not isinstance(password, str) or len(password) < MIN_LENGTH:
        return [messages.PASSWORD_TOO_SHORT.format(min=MIN_LENGTH)]
    if len(password) > MAX_LENGTH:
        return [messages.FIELD_TOO_LONG.format(max=MAX_LENGTH)]
    folded = password.casefold()
    address = (email or "").strip().casefold()
    if address and folded in {address, address.partition("@")[0]}:
        return [messages.PASSWORD_IS_EMAIL]
    if folded in common_passwords():
        return [messages.PASSWORD_TOO_COMMON]
    if is_breached(password):
        return [messages.PASSWORD_BREACHED]
    return []


def check_password(password, email, field="password"):
    """Raise ValidationFailed on ``field`` when ``password`` breaks the rule."""
    problems = password_problems(password, email)
    if problems:
        raise ValidationFailed({field: problems})
