"""CrowdSec's bouncer endpoints (LAPI v1) under /crowdsec: the decision stream and the decision query.

Bouncers speak CrowdSec's protocol, not guardsvc's envelope: answers and
refusals have the LAPI's shapes (a refused key is 403 ``{"message": "access
forbidden"}``, as the LAPI answers it). The caller is a machine named by its
key, so nothing here is guarded by blocks, sets a device cookie or loads a
session.
"""
from flask import Blueprint, current_app, g, request, jsonify, stream_with_context

from guardsvc.crowdsec.bouncers import bouncer_for_key
from guardsvc.crowdsec.stream import pull_stream, query_decisions, stream_json
from guardsvc.web.addresses import normalize_ip
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.metrics import counters as metrics

bp = never_guarded(json_door(Blueprint("crowdsec", __name__, url_prefix="/crowdsec/v1")))

KEY_HEADER = "X-Api-Key"
# The LAPI's own wording (pkg/apiserver/middlewares/v1/api_key.go): bouncers log it as it is.
ACCESS_FORBIDDEN = "access forbidden"
BAD_IP = "unable to convert ip"


def _refusal(status, message):
    response = jsonify({"message": message})
    response.status_code = status
    return response


@bp.before_request
def _authenticate():
    bouncer = bouncer_for_key(request.headers.get(KEY_HEADER))
    if bouncer is None:
        return _refusal(403, ACCESS_FORBIDDEN)
    g.bouncer = bouncer
    return None


@bp.get("/decisions/stream")
def decision_stream():
    """Every active decision (``startup=true``), else what was added and removed since this key's last pull."""
    if request.method == "HEAD":  # a probe: the cursor stays where it is, as the LAPI keeps it
        return "", 200
    startup = request.args.get("startup", "false").lower() == "true"
    metrics.STREAM_PULLS.inc()
    new, deleted = pull_stream(g.bouncer, startup)
    # Written out as it is read: a million decisions never sit in memory as one document.
    return current_app.response_class(stream_with_context(stream_json(new, deleted)), mimetype="application/json")


@bp.get("/decisions")
def decisions():
    """The active decisions covering ``ip`` (every active one without it); null when there is none."""
    ip = request.args.get("ip")
    if ip:
        try:
            ip = normalize_ip(ip)
        except ValueError:
            return _refusal(400, BAD_IP)
    found = query_decisions(ip=ip, scope=request.args.get("scope"), value=request.args.get("value"),
                            decision_type=request.args.get("type"))
    return ("", 200) if request.method == "HEAD" else jsonify(found)
