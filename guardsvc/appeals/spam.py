"""Cheap tells of an automated appeal form: a filled honeypot, or a form sent too fast.

No third-party CAPTCHA: the form carries a signed time stamp of when it was
served and a field people never see. A person takes more than a few seconds
to explain themselves; a script that fills every field or posts at once is
refused calmly, with nothing stored and nothing said about why.
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


def looks_automated(form):
    """True when the honeypot is filled or the form came back sooner than a person could."""
    if form.get(HONEYPOT_FIELD, "").strip():
        return True
    minimum = current_app.config["APPEAL_MIN_FILL_SECONDS"]
    if minimum <= 0:
        return False
    try:
        served = int(_serializer().loads(form.get(STAMP_FIELD, "")))
    except (BadSignature, TypeError, ValueError):
        return True
    return time.time() - served < minimum
