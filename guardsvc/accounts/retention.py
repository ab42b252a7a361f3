"""What the accounts feature forgets, and when (``flask purge``, guardsvc.retention)."""
from guardsvc.accounts.models import PasswordReset
from guardsvc.retention.service import Rule, days_ago, delete_rows


def _old_resets_due(now, config):
    """Reset links (and the address that asked for each) past the retention period."""
    return (PasswordReset.created_at < days_ago(now, config, "RETENTION_DAYS"),)


RULES = (Rule("password reset links deleted", PasswordReset, _old_resets_due, delete_rows(PasswordReset)),)
