"""What kind of door a request came in by: the one definition of "JSON door" and "never guarded".

A blueprint or a single view is marked where it is defined (``json_door``,
``never_guarded``); the error renderer, the device cookie, the CSRF and sign-in
answers and the block guard all read the mark of the endpoint the request was
routed to (for a wrong method, the endpoint of that URL). Only a URL that
matches no route at all falls back to a prefix rule: anything under ``/api/``
still answers JSON.
"""
from flask import current_app, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

API_PREFIX = "/api/"
_JSON = "guardsvc_json_door"
_UNGUARDED = "guardsvc_never_guarded"
# Flask's own route for files under static/ cannot carry a mark.
STATIC_ENDPOINT = "static"


def json_door(target):
    """Mark a blueprint or a view as a JSON door: every answer, failures included, is JSON."""
    setattr(target, _JSON, True)
    return target


def never_guarded(target):
    """Mark a blueprint or a view that a blocked client must still reach (contract section 5)."""
    setattr(target, _UNGUARDED, True)
    return target


def _endpoint():
    """The endpoint of the URL: routed, or (405) routed with a method it accepts; else None."""
    if request.url_rule is not None:
        return request.endpoint
    refusal = request.routing_exception
    if not isinstance(refusal, MethodNotAllowed) or not refusal.valid_methods:
        return None
    try:
        rule, _ = current_app.create_url_adapter(request).match(
            method=refusal.valid_methods[0], return_rule=True)
    except HTTPException:
        return None
    return rule.endpoint


def _marked(endpoint, mark):
    """True when the endpoint's view, or the blueprint it belongs to, carries ``mark``."""
    if getattr(current_app.view_functions.get(endpoint), mark, False):
        return True
    blueprint_name = endpoint.rpartition(".")[0]
    return bool(blueprint_name) and getattr(current_app.blueprints.get(blueprint_name), mark, False)


def is_static():
    return request.endpoint == STATIC_ENDPOINT


def answers_json():
    """True for a JSON door, and for an unknown URL under /api/ (nothing there answers HTML)."""
    endpoint = _endpoint()
    if endpoint is not None:
        return _marked(endpoint, _JSON)
    return request.path.startswith(API_PREFIX) or request.path == API_PREFIX.rstrip("/")


def endpoint_is_guarded(endpoint):
    """False for a never-guarded endpoint and static files (the API document asks this too)."""
    return not (endpoint == STATIC_ENDPOINT or _marked(endpoint, _UNGUARDED))


def is_guarded():
    """False for never-guarded doors and static files; True for everything else, unknown URLs too."""
    endpoint = _endpoint()
    return endpoint is None or endpoint_is_guarded(endpoint)


def is_browser_page():
    """True for requests a browser navigates to: not JSON, not a static file."""
    return not answers_json() and not is_static()
