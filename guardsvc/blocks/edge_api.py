"""The edge list door (``GET /edge/v1/decisions``): what a proxy's Lua module pulls every second.

Plain text, not the JSON envelope: the Lua side reads it line by line with no
JSON library. The caller is the proxy (it presents the forward-auth secret,
always). Without ``since`` it gets every active block; with
``since=<cursor>`` only what changed after that cursor - or every active block
again when the cursor is out of reach. ``X-Guardsvc-Cursor`` is the cursor to
send next time, ``X-Guardsvc-Full: 1`` says the body is the whole list (the
edge replaces what it holds), ``0`` that it is a delta.
"""
from flask import Blueprint, current_app, request

from guardsvc import messages
from guardsvc.blocks.edge import edge_delta, edge_snapshot
from guardsvc.blocks.forward_auth import check_proxy_caller
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.errors import ValidationFailed
from guardsvc.metrics import counters as metrics

bp = never_guarded(json_door(Blueprint("edge_api", __name__, url_prefix="/edge/v1")))

CURSOR_HEADER, FULL_HEADER = "X-Guardsvc-Cursor", "X-Guardsvc-Full"


def _since():
    """The cursor the edge holds, or None for the whole list; 422 for anything but a whole number."""
    text = request.args.get("since")
    if text is None:
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 19:
        raise ValidationFailed({"since": [messages.FIELD_BAD_INTEGER]})
    return int(text)


@bp.get("/decisions")
def decisions():
    """Every active block, or what changed since the edge's cursor (plain text, one target a line)."""
    check_proxy_caller()
    since = _since()
    answer = None if since is None else edge_delta(since)
    full = answer is None
    cursor, text = edge_snapshot() if full else answer
    metrics.EDGE_PULLS.inc()
    headers = {CURSOR_HEADER: str(cursor), FULL_HEADER: "1" if full else "0", "Cache-Control": "no-store"}
    return current_app.response_class(text, status=200, mimetype="text/plain", headers=headers)
