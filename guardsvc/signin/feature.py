"""Signing in: tokens for credentials, the sign-in, re-authentication and recovery pages, the security
section of /akun, passkey sign-in, and the sign-in history."""
from guardsvc import messages
from guardsvc.features import Feature
from guardsvc.signin import account_views, api, passkey_views, reauth_views, recovery_views, retention, views

FEATURE = Feature(
    "signin",
    blueprints=(api.bp, reauth_views.bp, recovery_views.bp, views.bp, passkey_views.bp, account_views.bp),
    retention_rules=retention.RULES,
    account_sections=(account_views.ACCOUNT_SECTION,),
    audit_actions={
        "signin.email_code_sent": messages.AUDIT_SIGNIN_CODE_SENT,
        "signin.email_code_passed": messages.AUDIT_SIGNIN_CODE_PASSED,
    },
)
