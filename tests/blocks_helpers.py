"""Helpers for tests of blocks and the administrator doors."""
from tests.pages_support import sign_in_session  # noqa: F401  (its former home; some modules import it here)

BLOCKED_IP = "203.0.113.7"
FREE_IP = "198.51.100.20"


def from_ip(ip):
    return {"environ_base": {"REMOTE_ADDR": ip}}
