"""Enforcement: a blocked client gets 403 on every guarded route.

Where the active set lives: in the database, looked up with one indexed query
per guarded request (equality on the client's device id, IN over the 33/129
prefixes that contain its IP, both on partial indexes of unlifted blocks).
That answer is the same in every worker and on every machine the moment a
block is created, lifted or expires, and there is no cache to invalidate.
An in-process cache would save roughly one index probe per request but would
need a cross-process invalidation signal (a version row read per request,
which is itself a query) and would let a lifted block outlive its lift for a
moment on other workers; ``make bench`` shows the query stays flat from an
empty list to a million blocks, so the cache is not worth its failure modes.
"""
from flask import url_for
from flask_login import current_user

from guardsvc.blocks.service import find_active_block
from guardsvc.web.doors import is_guarded
from guardsvc.web.errors import Blocked
from guardsvc.web.identity import current_client

# What a blocked client may still reach (contract section 5: the appeal pages,
# the two public ticket endpoints, static files, health checks, the API
# document; and signing out, which only gives up access) is marked on those
# doors with ``doors.never_guarded``.


def appeal_url(block):
    """Link to the appeal form, pre-filled with the block reference.

    Relative, so it is right on whatever host name the service is reached by.
    """
    return url_for("appeal_pages.appeal_form", ref=block.reference)


def _is_administrator():
    # Evaluated only for blocked clients: loads the session or bearer identity.
    return current_user.is_authenticated and current_user.is_admin


def enforce_blocks():
    """before_request: raise Blocked for a blocked, non-administrator client on a guarded route.

    Malformed X-Device-Id / X-Local-Ip headers raise 422 here (current_client).
    """
    if not is_guarded():
        return
    client = current_client()
    block = find_active_block(client.ip_address, client.device_id, client.local_ip)
    if block is not None and not _is_administrator():
        raise Blocked(block, appeal_url(block))


def init_guard(app):
    """Run the guard on every request (after the auth hooks registered earlier)."""
    app.before_request(enforce_blocks)
