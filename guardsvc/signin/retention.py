"""What the signin feature forgets, and when (``flask purge``, guardsvc.retention)."""
from datetime import timedelta

from guardsvc.retention.service import Rule, days_ago, delete_rows
from guardsvc.signin.models import EmailVerification, LoginEvent

# An e-mailed sign-in code is of no use once its quarter of an hour is over; its row (an address and
# a place) is kept a day for the owner's and the operator's questions, then goes.
EMAIL_CODES_KEPT = timedelta(days=1)


def _sign_ins_due(now, config):
    return (LoginEvent.created_at < days_ago(now, config, "SIGNIN_HISTORY_DAYS"),)


def _old_email_codes_due(now, config):
    return (EmailVerification.expires_at < now - EMAIL_CODES_KEPT,)


RULES = (
    Rule("sign-in events deleted", LoginEvent, _sign_ins_due, delete_rows(LoginEvent)),
    Rule("e-mailed sign-in codes deleted", EmailVerification, _old_email_codes_due, delete_rows(EmailVerification)),
)
