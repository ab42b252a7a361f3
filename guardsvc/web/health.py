"""Liveness and readiness probes (never guarded, never blocked)."""
from flask import Blueprint, current_app, jsonify
from marshmallow import fields

from guardsvc import messages

from guardsvc.web.doors import json_door, never_guarded
from guardsvc.storage.database import schema_state
from guardsvc.storage.revisions import SERVING
from guardsvc.web.errors import render_failure
from guardsvc.web.operations import Envelope, Tag, operation

bp = never_guarded(json_door(Blueprint("health", __name__)))
SYSTEM = Tag("Sistem", "Pemeriksaan kesehatan untuk penyeimbang beban dan dokumen API ini.")


def _probe(name, status):
    return Envelope(name=name, extra={"status": fields.String(required=True, metadata={"enum": [status]})})


@bp.get("/healthz")
@operation("checkLiveness", "Proses menjawab (liveness)", SYSTEM, {200: _probe("LivenessResponse", "ok")},
           database=False, description="Tidak menyentuh basis data dan tidak pernah diblokir.")
def healthz():
    """The process answers: it reads neither the database, nor the rate-limit store, nor the session."""
    # Not jsonio.ok(): its first parameter is the HTTP status.
    return jsonify(success=True, status="ok")


@bp.get("/readyz")
@operation("checkReadiness", "Basis data juga menjawab (readiness)", SYSTEM, {200: _probe("ReadinessResponse", "ready")},
           description="503 selama basis data tidak terjangkau atau skemanya tertinggal dari kode (migrasi "
                       "belum dijalankan). Tidak pernah diblokir.")
def readyz():
    """The database answers and its schema serves this code; else 503 with the reason.

    A schema ahead of the code (the next release's migrations ran) serves it unless one of them
    declared otherwise, so a node of the previous release stays ready through an upgrade.
    ``reason`` is for the operator's orchestrator: ``schema_behind`` (a migration is still to run),
    ``schema_incompatible`` (a migration that ran removed what this code reads: replace the node),
    ``schema_missing`` (``flask --app guardsvc db upgrade`` never ran on this database); a database
    that cannot be reached is the usual 503 of every request.
    """
    state = schema_state(current_app)
    if state not in SERVING:
        return render_failure(503, messages.SCHEMA_BEHIND, headers={"Retry-After": "5"},
                              extra={"reason": f"schema_{state}"})
    return jsonify(success=True, status="ready")
