"""The /akun page, assembled from the sections that features register at app set-up.

accounts owns the page (and its token section); trusted devices and the
security part (two-step verification, sign-in history) belong to the trust and
signin features, which register their sections when their blueprints are
registered. So accounts draws the whole page without importing them.
"""
from dataclasses import dataclass
from typing import Callable

from flask import current_app, flash, redirect, render_template, url_for
from flask_login import current_user

from guardsvc.web.identity import current_client

_SECTIONS = "guardsvc.account_sections"


@dataclass(frozen=True)
class Section:
    """One part of /akun: its template, what it shows, and where it goes (lower ``order`` first).

    ``context(user, client)`` returns the mapping the template reads as ``part``.
    """

    name: str
    template: str
    context: Callable
    order: int


def register_section(app, section):
    """Add ``section`` to the account page of ``app`` (once per name)."""
    sections = app.extensions.setdefault(_SECTIONS, {})
    sections[section.name] = section


def register_section_with(blueprint, section):
    """Register ``section`` when ``blueprint`` is registered on an app (the feature's set-up)."""
    blueprint.record_once(lambda state: register_section(state.app, section))


def _sections():
    return sorted(current_app.extensions.get(_SECTIONS, {}).values(), key=lambda s: (s.order, s.name))


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
