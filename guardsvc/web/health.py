"""Liveness and readiness probes (never guarded, never blocked)."""
from flask import Blueprint, current_app, jsonify

from guardsvc import messages

from guardsvc.web.doors import json_door, never_guarded
from guardsvc.storage.database import schema_is_current
from guardsvc.web.errors import render_failure

bp = never_guarded(json_door(Blueprint("health", __name__)))


@bp.get("/healthz")
def healthz():
    """The process answers: it reads neither the database, nor the rate-limit store, nor the session."""
    # Not jsonio.ok(): its first parameter is the HTTP status.
    return jsonify(success=True, status="ok")


@bp.get("/readyz")
def readyz():
    """The database answers and its schema is the code's (503 while a migration is still to run)."""
    if not schema_is_current(current_app):
        return render_failure(503, messages.SCHEMA_BEHIND, headers={"Retry-After": "5"})
    return jsonify(success=True, status="ready")
