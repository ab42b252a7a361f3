"""Static files under fingerprinted URLs, kept by browsers for a year.

At start every file under the static folder (wherever it is: a checkout or an
installed package) is read once and given a short hash of its content;
``url_for('static', filename=...)`` then adds it as ``?v=<hash>``. A request
that names the current hash answers ``Cache-Control: public, max-age=31536000,
immutable``: a changed file gets a new URL, so a browser never revalidates the
old one, and a phone loads a page without asking for its CSS and scripts again.
Any other URL of the file (no hash, an old one) keeps Flask's revalidation.
No build step: the hashes come from the files as they are when the service starts.
"""
import hashlib
import os
from pathlib import Path

from flask import current_app, request

from guardsvc.web.doors import STATIC_ENDPOINT

FINGERPRINT_ARG = "v"
IMMUTABLE = "public, max-age=31536000, immutable"
_FINGERPRINTS = "guardsvc.static_fingerprints"
_HASH_LENGTH = 12


def fingerprints(folder):
    """``{path under folder (with /): hash of its content}`` for every file below ``folder``."""
    found = {}
    if not folder or not os.path.isdir(folder):
        return found
    root = Path(folder)
    for path in sorted(root.rglob("*")):
        if path.is_file():
            found[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()[:_HASH_LENGTH]
    return found


def fingerprint_of(filename):
    """The content hash of a static file at start, or None (a file that was not there then)."""
    return current_app.extensions[_FINGERPRINTS].get(filename)


def _add_fingerprint(endpoint, values):
    """url_defaults: a static file's URL names its content hash."""
    if endpoint == STATIC_ENDPOINT and FINGERPRINT_ARG not in values:
        found = fingerprint_of(values.get("filename"))
        if found:
            values[FINGERPRINT_ARG] = found


def _cache_fingerprinted(response):
    """after_request: a static file asked for by its current hash may be kept for a year, unasked."""
    if request.endpoint != STATIC_ENDPOINT or response.status_code not in (200, 304):
        return response
    found = fingerprint_of((request.view_args or {}).get("filename"))
    if found and request.args.get(FINGERPRINT_ARG) == found:
        response.headers["Cache-Control"] = IMMUTABLE
    return response


def init_static_files(app):
    """Hash the static files once and fingerprint their URLs."""
    app.extensions[_FINGERPRINTS] = fingerprints(app.static_folder)
    app.url_defaults(_add_fingerprint)
    app.after_request(_cache_fingerprinted)
