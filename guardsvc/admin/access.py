"""One rule for every administrator door: signed in as an administrator, else 401/403."""
from guardsvc.accounts.auth import roles_required
from guardsvc.accounts.roles import ADMINS

_admin_only = roles_required(*ADMINS)(lambda: None)


def require_admin():
    """Blueprint before_request: anonymous -> 401 (JSON) or sign-in redirect; other roles -> 403."""
    return _admin_only()
