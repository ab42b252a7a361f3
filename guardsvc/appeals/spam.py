"""Cheap tells of an automated appeal form: a filled honeypot, or a form sent too fast.

No third-party CAPTCHA: the form carries a signed time stamp of when it was
served and a field people never see. A person takes more than a few seconds
to explain themselves; a script that fills every field is refused calmly,
with nothing stored and nothing said about why. A form sent too fast is told
so, entries kept and its stamp carried over: a person who pasted or
autofilled it only has to send it again a moment later.
"""
import time

from flask import current_app
from itsdangerous import BadSignature, URLSafeSerializer

HONEYPOT_FIELD = "situs_web"
STAMP_FIELD = "dibuka"


def _serializer():
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="guardsvc-appeal-form")


def form_stamp():
    """A signed stamp of now, for the hidden field of a freshly served form."""
    return _serializer().dumps(int(time.time()))


TOO_FAST = "too_fast"
AUTOMATED = "automated"


def _served_at(form):
    """When the form was served (its signed stamp), or None for a missing or forged stamp."""
    try:
        return int(_serializer().loads(form.get(STAMP_FIELD, "")))
    except (BadSignature, TypeError, ValueError):
        return None


def carried_stamp(form):
    """The stamp a form came back with, to serve it again (the time already spent still counts); else a new one."""
    return form.get(STAMP_FIELD) if _served_at(form) is not None else form_stamp()


def refusal(form):
    """Why a submitted form looks automated, or None: AUTOMATED for a filled honeypot or a missing or
    forged stamp (said no more about), TOO_FAST for a form sent sooner than a person usually could
    (said plainly: a person who pasted or autofilled it only has to send it again)."""
    if form.get(HONEYPOT_FIELD, "").strip():
        return AUTOMATED
    minimum = current_app.config["APPEAL_MIN_FILL_SECONDS"]
    if minimum <= 0:
        return None
    served = _served_at(form)
    if served is None:
        return AUTOMATED
    return TOO_FAST if time.time() - served < minimum else None
