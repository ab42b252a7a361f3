"""What the signin feature forgets, and when (``flask purge``, guardsvc.retention)."""
from datetime import timedelta

from guardsvc.retention.service import Rule, days_ago, delete_rows
from guardsvc.signin.models import EmailVerification, LoginEvent, SignInCountry
from guardsvc.signin.verification import KNOWN_COUNTRY_DAYS

# An e-mailed sign-in code is of no use once its quarter of an hour is over; its row (an address and
# a place) is kept a day for the owner's and the operator's questions, then goes.
EMAIL_CODES_KEPT = timedelta(days=1)


def _sign_ins_due(now, config):
    return (LoginEvent.created_at < days_ago(now, config, "SIGNIN_HISTORY_DAYS"),)


def _countries_due(now, config):
    """A country the new-country rule no longer looks back to (its last sign-in is older than the rule's days).

    Kept that long even when the sign-in history goes sooner: a quiet account's sign-in from
    elsewhere must still be told from one at home (signin/verification.py)."""
    return (SignInCountry.last_signed_in_at < now - timedelta(days=KNOWN_COUNTRY_DAYS),)


def _old_email_codes_due(now, config):
    return (EmailVerification.expires_at < now - EMAIL_CODES_KEPT,)


RULES = (
    Rule("sign-in events deleted", LoginEvent, _sign_ins_due, delete_rows(LoginEvent)),
    Rule("sign-in countries deleted", SignInCountry, _countries_due, delete_rows(SignInCountry)),
    Rule("e-mailed sign-in codes deleted", EmailVerification, _old_email_codes_due, delete_rows(EmailVerification)),
)
