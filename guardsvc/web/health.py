"""Liveness and readiness probes (never guarded, never blocked)."""
from flask import Blueprint, jsonify
from sqlalchemy import text

from guardsvc.web.doors import json_door, never_guarded
from guardsvc.extensions import db

bp = never_guarded(json_door(Blueprint("health", __name__)))


@bp.get("/healthz")
def healthz():
    """The process answers: it reads neither the database, nor the rate-limit store, nor the session."""
    # Not jsonio.ok(): its first parameter is the HTTP status.
    return jsonify(success=True, status="ok")


@bp.get("/readyz")
def readyz():
    """The database answers too (503 through the error handler when it does not)."""
    db.session.execute(text("SELECT 1"))
    return jsonify(success=True, status="ready")
