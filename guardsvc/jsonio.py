"""What every JSON door does with bodies: parse strictly, answer in one shape."""
import json

from flask import jsonify, request

from guardsvc import messages
from guardsvc.errors import BadRequest, UnsupportedMediaType


def json_body():
    """The request body as a dict.

    Empty body: ``{}``. Non-empty body without a JSON Content-Type: 415.
    Not JSON, not UTF-8, or not an object: 400. Over 64 KiB: 413 (Flask).
    """
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    mimetype = request.mimetype or ""
    if not (mimetype == "application/json" or mimetype.endswith("+json")):
        raise UnsupportedMediaType()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadRequest(messages.BAD_JSON) from exc
    if not isinstance(data, dict):
        raise BadRequest(messages.BAD_JSON)
    return data


def ok(status=200, /, **body):
    """A success answer: ``{"success": true, ...}``."""
    response = jsonify({"success": True, **body})
    response.status_code = status
    return response
