"""Liveness and readiness probes (never guarded, never blocked)."""
from flask import Blueprint
from sqlalchemy import text

from guardsvc.extensions import db
from guardsvc.jsonio import ok

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    """The process answers."""
    return ok(status="ok")


@bp.get("/readyz")
def readyz():
    """The database answers too (503 through the error handler when it does not)."""
    db.session.execute(text("SELECT 1"))
    return ok(status="ready")
