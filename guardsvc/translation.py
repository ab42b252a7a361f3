"""Looking texts up in the catalogues (Flask-Babel's), fast enough to do it for every text of a page.

The language itself is chosen in guardsvc.web.locale (Flask-Babel's locale selector).
"""
from babel import Locale
from flask import g
from flask_babel import get_locale, get_translations
from flask_babel.speaklater import LazyString
from jinja2 import pass_eval_context
from markupsafe import Markup

# The languages with a catalogue: Indonesian is the source, English is translated.
LANGUAGES = ("id", "en")
# Parsed once, and the only locale objects in play (the selector and ``in_language`` hand out
# these): Flask-Babel would parse again on every request, and comparing two Locale objects
# costs more than finding a text.
LOCALES = {language: Locale.parse(language) for language in LANGUAGES}
# Catalogue of each of those locales (by identity), loaded once per process: Flask-Babel finds
# its catalogue through five context look-ups on every call, and an e-mail asks for dozens of texts.
_CATALOGUES = {}


def _catalogue():
    locale = _chosen_locale() or get_locale()
    found = _CATALOGUES.get(id(locale))
    if found is not None and found[0] is locale:
        return found[1]
    catalogue = get_translations()
    if locale is not None and LOCALES.get(locale.language) is locale:
        _CATALOGUES[id(locale)] = (locale, catalogue)
    return catalogue


def _chosen_locale():
    """The locale Flask-Babel already chose (or was forced to) in this context, read in one step.

    ``get_locale()`` answers the same after three look-ups through ``flask.g``'s proxy; where
    Flask-Babel keeps its choice is its own business, so anything unexpected falls back to it
    (and tests/project/test_dependency_reaches.py fails, as the quick look would then never find it).
    """
    try:
        state = g._get_current_object().__dict__.get("_flask_babel")
    except RuntimeError:  # no application context: no catalogue either
        return None
    return getattr(state, "babel_locale", None)


def gettext(text):
    """``text`` in the current language."""
    return _catalogue().ugettext(text)


class MessageId(LazyString):
    """A message id: its source text (``source``), read in the language of the moment it is used as text."""

    def __init__(self, text):
        super().__init__(gettext, text)
        self.source = text


def lazy_gettext(text):
    """A message id: ``text`` in the language of the moment it is used as text."""
    return MessageId(text)


def source_text(message):
    """The source text (Indonesian) of a message id made by ``lazy_gettext``, in no request's language."""
    return message.source


def _fill(eval_ctx, translated, values):
    """Jinja's newstyle gettext: escaped values into the (then markup-safe) text, always a format string."""
    if eval_ctx.autoescape:
        translated = Markup(translated)
    # "%%" is a per cent sign even without values (Jinja's rule); most texts have neither.
    return translated % values if values or "%" in translated else translated


@pass_eval_context
def _template_gettext(eval_ctx, text, /, **values):
    return _fill(eval_ctx, _catalogue().ugettext(text), values)


@pass_eval_context
def _template_ngettext(eval_ctx, singular, plural, count, /, **values):
    values.setdefault("num", count)  # a page may show another value than the one that picks the form
    return _fill(eval_ctx, _catalogue().ungettext(singular, plural, count), values)


@pass_eval_context
def _template_pgettext(eval_ctx, context, text, /, **values):
    values.setdefault("context", context)
    return _fill(eval_ctx, _catalogue().upgettext(context, text), values)


@pass_eval_context
def _template_npgettext(eval_ctx, context, singular, plural, count, /, **values):
    values.setdefault("context", context)
    values.setdefault("num", count)
    return _fill(eval_ctx, _catalogue().unpgettext(context, singular, plural, count), values)


def install_translations(app):
    """Templates translate through the same catalogues, with the semantics of Jinja's newstyle
    gettext (values escaped and filled in), in one call per text instead of Jinja's three and
    Flask-Babel's context look-ups: an e-mail or a page holds dozens of texts."""
    app.jinja_env.newstyle_gettext = True  # how {% trans %} blocks call them (the i18n extension's flag)
    app.jinja_env.globals.update(_=_template_gettext, gettext=_template_gettext, ngettext=_template_ngettext,
                                 pgettext=_template_pgettext, npgettext=_template_npgettext)
