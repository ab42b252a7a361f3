"""What every JSON door does with bodies: parse strictly, answer in one shape."""
import json

from flask import jsonify, request

from guardsvc import messages
from guardsvc.web.errors import BadRequest, UnsupportedMediaType, ValidationFailed
from guardsvc.web.schema_fields import has_lone_surrogate


def json_body():
    """The request body as a dict.

    Empty body: ``{}``. Non-empty body without a JSON Content-Type: 415.
    Not JSON, not UTF-8, nested too deeply to read, or not an object: 400.
    Over 64 KiB: 413 (Flask). A field holding a lone UTF-16 surrogate
    (``"\\ud800"``: no character, nothing can store or hash it): 422 for that field.
    """
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    mimetype = request.mimetype or ""
    if not (mimetype == "application/json" or mimetype.endswith("+json")):
        raise UnsupportedMediaType()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadRequest(messages.BAD_JSON) from exc
    if not isinstance(data, dict):
        raise BadRequest(messages.BAD_JSON)
    unreadable = {str(key).encode("utf-8", "replace").decode("utf-8"): [messages.FIELD_BAD_CHARS]
                  for key, value in data.items() if _holds_lone_surrogate(key, value)}
    if unreadable:
        raise ValidationFailed(unreadable)
    return data


def _holds_lone_surrogate(*values):
    # Iterative: a body nested as deep as the parser allows must not exhaust the stack here.
    stack = list(values)
    while stack:
        value = stack.pop()
        if isinstance(value, str) and has_lone_surrogate(value):
            return True
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def ok(status=200, /, **body):
    """A success answer: ``{"success": true, ...}``."""
    response = jsonify({"success": True, **body})
    response.status_code = status
    return response
