"""Helpers for tests of blocks and the administrator doors."""
import os

from tests.support.pages_support import sign_in_session  # noqa: F401  (its former home; some modules import it here)

BLOCKED_IP = "203.0.113.7"
FREE_IP = "198.51.100.20"
# The test settings' GUARDSVC_FORWARD_AUTH_SECRET (tests/conftest.py): what a proxy sends as X-Guardsvc-Secret.
PROXY_SECRET = os.environ["GUARDSVC_FORWARD_AUTH_SECRET"]


def from_ip(ip):
    return {"environ_base": {"REMOTE_ADDR": ip}}
