"""Liveness and readiness probes (never guarded, never blocked)."""
import logging

from flask import Blueprint, current_app, jsonify
from marshmallow import fields

from guardsvc import messages
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.storage import deadline
from guardsvc.storage.database import schema_state
from guardsvc.storage.revisions import SERVING
from guardsvc.storage.transaction import abandon
from guardsvc.web.errors import is_connection_problem, render_failure
from guardsvc.web.operations import Envelope, Tag, operation

log = logging.getLogger(__name__)
bp = never_guarded(json_door(Blueprint("health", __name__)))
SYSTEM = Tag("Sistem", "Pemeriksaan kesehatan untuk penyeimbang beban dan dokumen API ini.")
# How long /readyz may wait for the database, teardown included: readiness probes give up after
# a second (Kubernetes' default), and a probe must not hold a thread while the database is away.
READY_WAIT_SECONDS = 0.5


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
           description="503 dalam satu detik selama basis data tidak menjawab (`reason`: "
                       "`database_unavailable`) atau skemanya tertinggal dari kode (`schema_behind`, "
                       "`schema_missing`: migrasi belum dijalankan) atau dilewati migrasi yang menyatakan tidak "
                       "cocok lagi dengan kode ini (`schema_incompatible`). Tidak pernah diblokir.")
def readyz():
    """The database answers and its schema serves this code; else 503 with the reason, within a second.

    A schema ahead of the code (the next release's migrations ran) serves it unless one of them
    declared otherwise, so a node of the previous release stays ready through an upgrade.
    ``reason`` is for the operator's orchestrator: ``database_unavailable`` (the database did not
    answer within ``READY_WAIT_SECONDS``, or failed to a moment ago: the breaker answers at once),
    ``schema_behind`` (a migration is still to run), ``schema_incompatible`` (a migration that ran
    removed what this code reads: replace the node), ``schema_missing`` (``flask --app guardsvc db
    upgrade`` never ran on this database).
    """
    deadline.shorten(READY_WAIT_SECONDS)
    if not deadline.database_breaker.allows():
        return _database_unavailable()
    try:
        state = schema_state(current_app)
    except Exception as error:  # noqa: BLE001 - anything but an unreachable database is re-raised
        if not is_connection_problem(error):
            raise
        abandon()
        log.warning("not ready: the database did not answer (%s)", error.__class__.__name__)
        return _database_unavailable()
    if state not in SERVING:
        return render_failure(503, messages.SCHEMA_BEHIND, headers={"Retry-After": "5"},
                              extra={"reason": f"schema_{state}"})
    return jsonify(success=True, status="ready")


def _database_unavailable():
    return render_failure(503, messages.UNAVAILABLE, headers={"Retry-After": "5"},
                          extra={"reason": "database_unavailable"})
