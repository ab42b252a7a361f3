"""The fleet as JSON: ``GET /api/admin/nodes`` and ``flask nodes --json``."""
from marshmallow import fields

from guardsvc.nodes.fingerprints import SHARED
from guardsvc.nodes.service import LIVE_WINDOW, NAME_SETTING
from guardsvc.web.schema_fields import BaseSchema, Nullable, Timestamp


class NodeSchema(BaseSchema):
    """A node seen in the last five minutes."""

    id = fields.Integer()
    name = fields.String(metadata={"description": "GUARDSVC_NODE_NAME, atau nama host dan folder instance."})
    version = fields.String(metadata={"description": "Versi paket guardsvc di node ini."})
    code_revision = fields.String(metadata={"description": "Revisi migrasi terakhir yang dikenal kode node ini."})
    schema_revision = Nullable(metadata={"description": "Revisi skema basis data saat laporan terakhir node ini."})
    started_at = Timestamp()
    last_seen_at = Timestamp()
    fingerprints = fields.Dict(
        keys=fields.String(metadata={"enum": list(SHARED)}), values=Nullable(),
        metadata={"description": "Sidik kunci (HMAC, bukan nilainya) tiap pengaturan yang harus sama di semua "
                                 "node; null: tidak dipakai di node ini."})


class DisagreementSchema(BaseSchema):
    """A shared setting one node holds otherwise than the rest, or a name several live nodes carry."""

    node = fields.String(metadata={"description": "Nama node yang berbeda."})
    setting = fields.String(metadata={"enum": [NAME_SETTING, *SHARED]})
    nodes_named = fields.Integer(metadata={"description": f"Untuk {NAME_SETTING}: berapa node memakai nama itu; "
                                                          "selain itu 0."})
    line = fields.String(metadata={"description": "Baris yang dicetak `flask nodes` (bahasa Inggris)."})


class FleetSchema(BaseSchema):
    """The live nodes, oldest start first, and every disagreement among them."""

    nodes = fields.List(fields.Nested(NodeSchema), required=True)
    disagreements = fields.List(fields.Nested(DisagreementSchema), required=True)
    live_window_seconds = fields.Function(lambda _: int(LIVE_WINDOW.total_seconds()),
                                          metadata={"type": "integer"})
