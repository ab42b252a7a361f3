"""Security notices: one e-mail per sensitive account event, queued in the event's own transaction.

Each says what happened, when (local time), from where (IP address and
"browser di OS"; or that an administrator did it on the command line when
``client`` is None) and, under "Bukan saya?", where to reset the password and
review the account. Text that people chose (device and token names, the
account name) is data, never a link: the HTML template shows it through
``unlinkable``.
"""
from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.web.humantime import human_time
from guardsvc.web.links import external_url
from guardsvc.web.locale import in_language
from guardsvc.outbox.service import compose_mail, queued_since, store_mail
from guardsvc.outbox.skeletons import Filled
from guardsvc.web.unlinkable import unlinkable  # noqa: F401  (kept importable from here)
from guardsvc.web.useragent import describe_user_agent

TEMPLATE = "security_notice"
def _origin(client):
    """(values shown, constants) saying where the event came from."""
    if client is None:
        return {}, {"by_command_line": messages.NOTICE_BY_COMMAND_LINE}
    return {"ip_address": client.ip_address,
            "device": str(describe_user_agent(client.user_agent) or messages.UNRECOGNISED_DEVICE)}, {}


def _queue(kind, user, subject, what, client, details=()):
    """Queue one notice to ``user``; ``details`` are extra (label, user-chosen text) rows."""
    return store_mail(_compose(kind, user, subject, what, client, details))


def _compose(kind, user, subject, what, client, details=()):
    with in_language(user.language):  # the holder's language, whoever caused the notice
        shown, constants = _origin(client)
        # What changes from one notice to the next is put into the language's skeleton (outbox.skeletons).
        fill = {"name": user.name, "email": user.email, "when": human_time(clock.utcnow()), **shown}
        rows = []
        for number, (label, value) in enumerate(details):
            fill[f"detail_{number}"] = value
            rows.append((label, Filled(f"detail_{number}")))
        return compose_mail(
            kind, user.email, subject, TEMPLATE, fill=fill, what=what, details=rows, **constants,
            forgot_url=external_url("recovery_pages.forgot_form"),
            account_url=external_url("account_pages.account"))


def password_changed(user, *, client):
    """The password was changed (on /akun or on the command line)."""
    return _queue("notice_password_changed", user, messages.NOTICE_PASSWORD_CHANGED_SUBJECT,
                  messages.NOTICE_PASSWORD_CHANGED, client)


def password_reset(user, *, client):
    """The password was set through a forgotten-password link."""
    return _queue("notice_password_reset", user, messages.NOTICE_PASSWORD_RESET_SUBJECT,
                  messages.NOTICE_PASSWORD_RESET, client)


def two_factor_enabled(user, *, client):
    """Two-step verification was turned on."""
    return _queue("notice_2fa_enabled", user, messages.NOTICE_2FA_ON_SUBJECT, messages.NOTICE_2FA_ON, client)


def two_factor_disabled(user, *, client):
    """Two-step verification was turned off by the account holder."""
    return _queue("notice_2fa_disabled", user, messages.NOTICE_2FA_OFF_SUBJECT, messages.NOTICE_2FA_OFF, client)


def two_factor_reset(user, *, client):
    """An administrator turned two-step verification off (``users reset-2fa``)."""
    return _queue("notice_2fa_reset", user, messages.NOTICE_2FA_RESET_SUBJECT, messages.NOTICE_2FA_RESET,
                  client)


def recovery_codes_replaced(user, *, client):
    """A new set of recovery codes was issued (the old ones stopped working)."""
    return _queue("notice_recovery_codes", user, messages.NOTICE_RECOVERY_CODES_SUBJECT,
                  messages.NOTICE_RECOVERY_CODES, client)


def token_created(user, record, *, client):
    """A personal access token was created (page, API or command line)."""
    return _queue("notice_token_created", user, messages.NOTICE_TOKEN_SUBJECT, messages.NOTICE_TOKEN, client,
                  [(messages.NOTICE_TOKEN_NAME, record.name)])


def device_trusted(user, record, *, client):
    """A device became trusted (newly, or again after it was revoked)."""
    return store_mail(device_trusted_notice(user, record.device_name, client=client))


def device_trusted_notice(user, device_name, *, client):
    """The notice of a newly trusted device, composed (``outbox.service.store_mail`` queues it).

    Composed before the device's row is inserted, so that the request's writes follow one another.
    """
    return _compose("notice_device_trusted", user, messages.NOTICE_TRUSTED_DEVICE_SUBJECT,
                    messages.NOTICE_TRUSTED_DEVICE, client, [(messages.NOTICE_DEVICE_NAME, device_name)])


def passkey_added(user, name, *, client):
    """A passkey was added to the account."""
    return _queue("notice_passkey_added", user, messages.NOTICE_PASSKEY_ADDED_SUBJECT,
                  messages.NOTICE_PASSKEY_ADDED, client, [(messages.NOTICE_PASSKEY_NAME, name)])


def passkey_removed(user, name, *, client):
    """A passkey was removed from the account (on /akun or on the command line)."""
    return _queue("notice_passkey_removed", user, messages.NOTICE_PASSKEY_REMOVED_SUBJECT,
                  messages.NOTICE_PASSKEY_REMOVED, client, [(messages.NOTICE_PASSKEY_NAME, name)])


def passkey_sign_count_back(user, name, *, client):
    """A passkey answered with a sign count that went backwards: perhaps a copy of it; refused."""
    return _queue("notice_passkey_count", user, messages.NOTICE_PASSKEY_COUNT_SUBJECT,
                  messages.NOTICE_PASSKEY_COUNT, client, [(messages.NOTICE_PASSKEY_NAME, name)])


LOCKED_KIND = "notice_account_locked"


def account_locked_once(user, *, client, since):
    """Strangers spent the account's wrong guesses; the owner's known browsers still sign in.

    Told once a window: nothing is queued when such a notice went out after ``since``.
    """
    if queued_since(user.email, LOCKED_KIND, since):
        return None
    return _queue(LOCKED_KIND, user, messages.NOTICE_LOCKED_SUBJECT, messages.NOTICE_LOCKED, client)


def account_disabled(user, *, client):
    """The account was disabled: sessions ended, tokens revoked."""
    return _queue("notice_account_disabled", user, messages.NOTICE_DISABLED_SUBJECT, messages.NOTICE_DISABLED,
                  client)
