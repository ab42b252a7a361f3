"""The /akun page, assembled from the sections that features register at app set-up.

accounts owns the page (and its token and sessions sections); trusted devices,
the security part (two-step verification, sign-in history), passkeys and the
desk's digest belong to other features, which name their sections in their
``feature.py`` (``Feature.account_sections``). So accounts draws the whole page
without importing them.
"""
from dataclasses import dataclass
from typing import Callable

from flask import flash, redirect, render_template, url_for
from flask_login import current_user

from guardsvc.features import each
from guardsvc.web.identity import current_client


@dataclass(frozen=True)
class Section:
    """One part of /akun: its template, what it shows, and where it goes (lower ``order`` first).

    ``context(user, client)`` returns the mapping the template reads as ``part``.
    """

    name: str
    template: str
    context: Callable
    order: int


def _sections():
    return sorted(each("account_sections"), key=lambda s: (s.order, s.name))


def render_account_page(status=200, *, errors=None, values=None, error_form=None, new_token=None):
    """The account page; ``error_form`` says which form ``errors`` belong to (e.g. "rename-7")."""
    client = current_client()
    parts = [(section, section.context(current_user, client)) for section in _sections()]
    body = render_template("accounts/account.html", sections=parts, client=client, errors=errors,
                           values=values or {}, error_form=error_form, new_token=new_token)
    # Never cached: it may show a new token or the secret of a 2FA set-up, and always personal data.
    return body, status, {"Cache-Control": "no-store"}


def back_to_section(anchor, message=None):
    """Answer a form on /akun: back to the section ``anchor`` (303), with ``message`` shown there."""
    if message:
        flash(message, "success")
    return redirect(url_for("account_pages.account", _anchor=anchor), code=303)
