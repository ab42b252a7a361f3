"""Texts the service writes into rows on people's behalf, read later in the reader's language.

A lifted block's reason ("Banding TKT-… disetujui"), the reason of a block made
from a ticket or a CrowdSec decision: written once, read by whoever opens the
page or asks the API, in their language. Such a text is stored as its message
id (the Indonesian source) with its values filled in, whatever language the
request that wrote it was in: the key and its parameters, in a column people
(and older clients) can still read as it is. ``readable`` recognises every
such message in every language, rows written in English before included, and
says it again in the current language. Anything else, what a person typed
above all, is given back unchanged.
"""
import re
from string import Formatter

from flask_babel import force_locale

from guardsvc import messages
from guardsvc.translation import LANGUAGES, LOCALES, gettext, source_text

# Every message the service stores on people's behalf.
STORED = (messages.APPEAL_APPROVED_LIFT_REASON, messages.TICKET_DEVICE_BLOCK_REASON,
          messages.CROWDSEC_BLOCK_REASON, messages.CROWDSEC_DECISION_ENDED, messages.SELF_RELEASE_ALLOW_REASON,
          messages.BLOCKLIST_IMPORT_REASON, messages.APPEAL_GROUP_LIFT_REASON)
_PATTERNS = []


def for_storage(message, **values):
    """``message`` (a message id of STORED) with ``values``, as it is stored: the source text, any request's language."""
    return source_text(message).format(**values)


def _pattern(template):
    """A regular expression that matches ``template`` (a str.format text) with any values, naming each."""
    parts = []
    for literal, name, _spec, _conversion in Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>.+?)")
    return re.compile("".join(parts), re.DOTALL)


def _patterns():
    """``[(message, its literal start, pattern)]`` for each stored message in each language, built once."""
    if not _PATTERNS:
        found = []
        for message in STORED:
            for language in LANGUAGES:
                with force_locale(LOCALES[language]):
                    template = gettext(source_text(message))
                start = template.split("{", 1)[0]
                found.append((message, start, _pattern(template)))
        _PATTERNS[:] = found
    return _PATTERNS


def readable(text):
    """``text`` in the current language when it is a stored message (of either language), else unchanged."""
    if not isinstance(text, str) or not text:
        return text
    for message, start, pattern in _patterns():
        if text.startswith(start):
            match = pattern.fullmatch(text)
            if match:
                return str(message).format(**match.groupdict())
    return text
