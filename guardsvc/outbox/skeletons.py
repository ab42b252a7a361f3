"""E-mails of the hot paths from a skeleton rendered once per language, with the request's values put in.

An appeal's confirmation and a trusted device's notice are rendered on every submission and every
first save-my-ip: two Jinja templates of a dozen translated sentences each, a fifth of such a
request's time, for texts that differ only in a few values (the ticket number, the time, the
links; the account, the address, the device). So each is rendered once per language (and per set
of the other, constant, values) with a marker in place of each such value, split at the markers,
and kept; composing a message joins the kept pieces with the values, escaped for HTML as the
template would escape them (and through ``unlinkable`` where the template shows a value through it).

The values must be ones the template shows and never tests (``compose_mail``'s ``fill``); a value
that is empty or not text is rendered the usual way instead.
"""
import re
import secrets
import threading

from flask_babel import get_locale
from markupsafe import escape

from guardsvc.web.unlinkable import unlinkable  # the filter the templates use

_TOKEN = "gsvslot" + secrets.token_hex(6)  # letters and digits: escaping and formatting keep it as it is
_MARK = re.compile(_TOKEN + r"(\d+)x")
_UNLINKABLE_OPEN, _UNLINKABLE_CLOSE = '<span class="data">', "</span>"
_KEPT = {}
_LOCK = threading.Lock()


def _split(rendered, html):
    """``[literal, (slot, unlinkable), literal, ...]`` of a skeleton."""
    pieces = []
    position = 0
    for match in _MARK.finditer(rendered):
        literal = rendered[position:match.start()]
        position = match.end()
        through = html and literal.endswith(_UNLINKABLE_OPEN) and rendered.startswith(_UNLINKABLE_CLOSE, position)
        if through:
            literal = literal[:-len(_UNLINKABLE_OPEN)]
            position += len(_UNLINKABLE_CLOSE)
        pieces.append(literal)
        pieces.append((int(match.group(1)), through))
    pieces.append(rendered[position:])
    return pieces


class Filled:
    """A place in a context value (a list of rows, say) where the ``fill`` value ``name`` goes."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Filled({self.name!r})"


def resolved(value, fill):
    """``value`` with each ``Filled`` in it replaced by its value in ``fill``."""
    if isinstance(value, Filled):
        return fill[value.name]
    if isinstance(value, list):
        return [resolved(item, fill) for item in value]
    if isinstance(value, tuple):
        return tuple(resolved(item, fill) for item in value)
    return value


def _skeleton(template, names, context, render):
    marked = {name: f"{_TOKEN}{i}x" for i, name in enumerate(names)}
    context = {name: resolved(value, marked) for name, value in context.items()}
    text = render(f"mail/{template}.txt", {**marked, **context})
    html = render(f"mail/{template}.html", {**marked, **context, "subject": f"{_TOKEN}{len(names)}x"})
    return _split(text, False), _split(html, True)


def _join(pieces, values, html):
    out = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
        else:
            value = values[piece[0]]
            out.append(str(unlinkable(value)) if piece[1] else str(escape(value)) if html else value)
    return "".join(out)


def _key_of(value):
    if isinstance(value, (list, tuple)):
        return tuple(_key_of(item) for item in value)
    return repr(value) if isinstance(value, Filled) else str(value)


def filled(template, subject, fill, context, render):
    """``(text, html)`` of ``template`` with ``fill``'s values put in its language's skeleton."""
    names = tuple(sorted(fill))
    key = (template, str(get_locale()), names, tuple((name, _key_of(value)) for name, value in sorted(context.items())))
    kept = _KEPT.get(key)
    if kept is None:
        kept = _skeleton(template, names, context, render)
        with _LOCK:
            if len(_KEPT) > 1000:  # constants that change (they should not) must not make it grow
                _KEPT.clear()
            _KEPT[key] = kept
    values = [fill[name] for name in names] + [subject]  # the HTML's title is the subject
    return _join(kept[0], values, False), _join(kept[1], values, True)
