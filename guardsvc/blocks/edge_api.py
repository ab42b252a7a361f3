"""The edge list door (``GET /edge/v1/decisions``): what a proxy's Lua module pulls every second.

Plain text, not the JSON envelope: the Lua side reads it line by line with no
JSON library. The caller is the proxy (it presents the forward-auth secret,
always); it sends the ETag it holds and an unchanged list costs a 304 with no
body.
"""
from flask import Blueprint, current_app, request

from guardsvc.blocks.edge import edge_list
from guardsvc.blocks.forward_auth import check_proxy_caller
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.metrics import counters as metrics

bp = never_guarded(json_door(Blueprint("edge_api", __name__, url_prefix="/edge/v1")))


@bp.get("/decisions")
def decisions():
    check_proxy_caller()
    text, etag = edge_list()
    headers = {"ETag": f'"{etag}"', "Cache-Control": "no-store"}
    metrics.EDGE_PULLS.inc()
    if request.if_none_match.contains(etag):
        return current_app.response_class(status=304, headers=headers)
    return current_app.response_class(text, status=200, mimetype="text/plain", headers=headers)
