"""The API document's own operations: the probes and the document itself."""
from marshmallow import fields

from guardsvc.openapi.operations import Envelope, Operation, Tag

SYSTEM = Tag("Sistem", "Pemeriksaan kesehatan untuk penyeimbang beban dan dokumen API ini.")


def _probe(name, status):
    return Envelope(name=name, extra={"status": fields.String(required=True, metadata={"enum": [status]})})


OPERATIONS = (
    Operation("health.healthz", "checkLiveness", "Proses menjawab (liveness)", SYSTEM,
              {200: _probe("LivenessResponse", "ok")}, database=False,
              description="Tidak menyentuh basis data dan tidak pernah diblokir."),
    Operation("health.readyz", "checkReadiness", "Basis data juga menjawab (readiness)", SYSTEM,
              {200: _probe("ReadinessResponse", "ready")},
              description="503 dalam satu detik selama basis data tidak menjawab (`reason`: "
                          "`database_unavailable`) atau skemanya tertinggal dari kode (`schema_behind`, "
                          "`schema_missing`: migrasi belum dijalankan). Tidak pernah diblokir."),
    Operation("openapi.openapi_document", "getOpenApiDocument", "Dokumen OpenAPI 3 ini", SYSTEM,
              {200: {"type": "object", "required": ["openapi", "info", "paths"]}}, database=False,
              description="`servers` menunjuk alamat tempat dokumen ini diminta "
                          "(atau GUARDSVC_BASE_URL bila diatur)."),
)
