"""Which language a person reads: Indonesian first, English beside it (contract section 12).

The choice, in order: the switch on every page (kept in the ``guardsvc_lang``
cookie), else the browser's ``Accept-Language``, else ``GUARDSVC_DEFAULT_LOCALE``.
JSON doors follow ``Accept-Language`` the same way (an API client has no
cookie of ours, or sends the one its browser holds). Outside a request (the
CLI, the worker) the default applies, unless a caller forces the language of
the person a message is for (``in_language``).
"""
from contextlib import contextmanager

from flask import current_app, has_request_context, make_response, request
from flask_babel import force_locale, get_locale
from flask_login import current_user

from guardsvc import messages
from guardsvc.translation import LANGUAGES, LOCALES
from guardsvc.web.doors import is_static
from guardsvc.web.errors import BadRequest

LANGUAGE_NAMES = {"id": "Bahasa Indonesia", "en": "English"}
COOKIE = "guardsvc_lang"
COOKIE_DAYS = 365


def is_language(value):
    return isinstance(value, str) and value in LANGUAGES


def select_locale():
    """Flask-Babel's locale selector: cookie, then Accept-Language, then the default."""
    chosen = None
    if has_request_context():
        chosen = request.cookies.get(COOKIE)
        if not is_language(chosen) and "Accept-Language" in request.headers:
            chosen = request.accept_languages.best_match(LANGUAGES)
    return LOCALES.get(chosen) or LOCALES.get(current_app.config["BABEL_DEFAULT_LOCALE"])


def current_language():
    """``id`` or ``en``: the language of this request (or of the message being composed)."""
    return get_locale().language


@contextmanager
def in_language(language):
    """Render what is inside in ``language`` (a stored choice); None or unknown: the current one."""
    if not is_language(language):
        yield
        return
    with force_locale(LOCALES[language]):
        yield


def rendered_in_chosen_language(render):
    """A page's own language switch (it submits the page's form, so nothing typed is lost): ``render()``
    -> (body, status[, headers]) again in the language the form asks for, with the choice kept.
    Nothing the form holds is sent or stored."""
    language = request.form.get("lang")
    if not is_language(language):
        raise BadRequest(messages.LANGUAGE_UNKNOWN)
    with in_language(language):
        answer = render()
    return keep_chosen_language(make_response(*answer), language)


def keep_language_of(user, language):
    """Note on an account the language its holder reads (at sign-in, at the switch): notices
    to them go out in it, whoever causes them. Written only when it changed."""
    if user.language != language:
        user.language = language


def keep_chosen_language(response, language):
    """The switch was pressed: keep ``language`` in its cookie on ``response``, and on the signed-in
    person's account (notices to them go out in it)."""
    if current_user.is_authenticated:
        keep_language_of(current_user, language)
    return remember_language(response, language)


def remember_language(response, language):
    """Keep the switch's choice in a long-lived cookie (not a secret; no script needs to read it).

    Scoped like the device cookie, not like guardsvc's own: behind a proxy the block page is
    answered at the guarded page's own address, and it must read the choice there too.
    """
    config = current_app.config
    response.set_cookie(COOKIE, language, max_age=COOKIE_DAYS * 24 * 3600, path=config["DEVICE_COOKIE_PATH"],
                        domain=config["DEVICE_COOKIE_DOMAIN"], httponly=True, samesite="Lax",
                        secure=config["SESSION_COOKIE_SECURE"])
    return response


def vary_by_language(response):
    """after_request: an answer whose words depend on the language says what they depend on.

    A static file has no words: varying it by the cookies would make a browser fetch it again
    whenever a cookie changes (the first page view sets some), fingerprinted URL or not.
    """
    if not is_static():
        headers = response.headers
        if not any(name.lower() == "vary" for name in headers.keys()):
            headers["Vary"] = "Accept-Language, Cookie"  # the usual case: no header set parsed
        else:
            response.vary.update(("Accept-Language", "Cookie"))
    return response
