"""Accounts: tokens (API and /akun), the account page, sessions on it, and the users, tokens and passwords commands."""
from guardsvc import messages
from guardsvc.accounts import api, retention, session_views, views
from guardsvc.accounts.auth import init_auth
from guardsvc.accounts.cli import tokens_cli, users_cli
from guardsvc.accounts.passwords_cli import passwords_cli
from guardsvc.features import Feature

FEATURE = Feature(
    "accounts",
    init_app=init_auth,
    blueprints=(api.bp, views.bp, session_views.bp),
    commands=(users_cli, tokens_cli, passwords_cli),
    retention_rules=retention.RULES,
    account_sections=(session_views.ACCOUNT_SECTION, views.ACCOUNT_SECTION),
    audit_actions={
        "user.created": messages.AUDIT_USER_CREATED,
        "user.role_set": messages.AUDIT_USER_ROLE_SET,
        "user.disabled": messages.AUDIT_USER_DISABLED,
        "user.enabled": messages.AUDIT_USER_ENABLED,
        "user.password_set": messages.AUDIT_USER_PASSWORD_SET,
        "token.revoked": messages.AUDIT_TOKEN_REVOKED,
        "passwords.breached_loaded": messages.AUDIT_BREACHED_LOADED,
    },
)
