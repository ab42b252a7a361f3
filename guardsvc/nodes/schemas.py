"""The fleet as JSON: ``GET /api/admin/nodes`` and ``flask nodes --json``."""
from marshmallow import fields

from guardsvc.nodes.fingerprints import SHARED
from guardsvc.nodes.service import LIVE_WINDOW, NAME_SETTING
from guardsvc.web.schema_fields import BaseSchema, Nullable, Timestamp


class NodeSchema(BaseSchema):
    """A node seen in the last five minutes."""

    id = fields.Integer()
    name = fields.String()  # GUARDSVC_NODE_NAME, else the host name and the instance folder
    version = fields.String()  # of the guardsvc package
    code_revision = fields.String()  # the last migration the node's code knows
    schema_revision = Nullable()  # the database's, at the node's last report
    started_at = Timestamp()
    last_seen_at = Timestamp()
    # {setting: keyed hash (never the value), or null when the node does not use the setting}
    fingerprints = fields.Dict(keys=fields.String(metadata={"enum": list(SHARED)}), values=Nullable())


class DisagreementSchema(BaseSchema):
    """A shared setting one node holds otherwise than the rest, or a name several live nodes carry."""

    node = fields.String()
    setting = fields.String(metadata={"enum": [NAME_SETTING, *SHARED]})
    nodes_named = fields.Integer()  # for GUARDSVC_NODE_NAME: how many live nodes carry the name; else 0
    line = fields.String()  # as `flask nodes` prints it (English)


class FleetSchema(BaseSchema):
    """The live nodes, oldest start first, and every disagreement among them."""

    nodes = fields.List(fields.Nested(NodeSchema), required=True)
    disagreements = fields.List(fields.Nested(DisagreementSchema), required=True)
    live_window_seconds = fields.Function(lambda _: int(LIVE_WINDOW.total_seconds()),
                                          metadata={"type": "integer"})
