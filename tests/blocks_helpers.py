"""Helpers for tests of blocks and the administrator doors."""
BLOCKED_IP = "203.0.113.7"
FREE_IP = "198.51.100.20"


def sign_in_session(client, user):
    """Make ``client`` carry a signed-in session cookie for ``user`` (as /masuk would)."""
    with client.session_transaction() as session:
        session["_user_id"] = user.get_id()
        session["_fresh"] = True


def from_ip(ip):
    return {"environ_base": {"REMOTE_ADDR": ip}}
