"""The plain dump of BaseSchema gives exactly what marshmallow's own dump gives."""
from datetime import datetime
from types import SimpleNamespace

from marshmallow import fields
from sqlalchemy import select

from guardsvc.appeals.schemas import TicketStatusSchema, TicketSubmittedSchema
from guardsvc.extensions import db
from guardsvc.trust.schemas import TrustedIpSchema
from guardsvc.web.schema_fields import BaseSchema, Nullable, Timestamp

WHEN = datetime(2026, 11, 22, 8, 50, 0, 123456)
TICKET = SimpleNamespace(id=7, ticket_number="TKT-0000ABCD", ip_address="203.0.113.7", name="Budi",
                         email="budi@example.com", status="pending", created_at=WHEN, resolved_at=None,
                         admin_notes=None)
DEVICE = SimpleNamespace(id=3, user_id=1, ip_address="203.0.113.7", local_ip=None, device_label="laptop",
                         device_name="Laptop", operating_system=None, is_active=True, verified_at=WHEN)


def marshmallow_dump(schema, obj):
    return super(BaseSchema, schema).dump(obj)


def test_plain_objects_dump_as_marshmallow_dumps_them():
    for schema, obj in ((TicketStatusSchema(), TICKET), (TicketSubmittedSchema(), TICKET),
                        (TrustedIpSchema(), DEVICE)):
        assert schema._plain_plan() is not None
        assert schema.dump(obj) == marshmallow_dump(schema, obj)
    assert TicketStatusSchema().dump(TICKET)["created_at"] == "2026-11-22T08:50:00.123456Z"


def test_a_database_row_dumps_as_marshmallow_dumps_it(app):
    with app.app_context():
        row = db.session.execute(select(*(
            db.literal(value).label(name) for name, value in (
                ("ticket_number", "TKT-0000ABCD"), ("status", "approved"), ("created_at", "x"),
                ("resolved_at", None), ("admin_notes", "ok"))))).first()
    schema = TicketStatusSchema(exclude=("created_at", "resolved_at"))
    assert schema.dump(row) == marshmallow_dump(schema, row) == {
        "ticket_number": "TKT-0000ABCD", "status": "approved", "admin_notes": "ok"}


def test_what_the_plain_dump_cannot_read_goes_through_marshmallow():
    class Shaped(BaseSchema):
        name = fields.String()
        label = Nullable(attribute="owner.name")
        when = Timestamp(dump_default=None)

    schema = Shaped()
    assert schema._plain_plan() is None  # a dotted path
    owner = SimpleNamespace(name="Ani")
    assert schema.dump(SimpleNamespace(name="x", owner=owner, when=WHEN))["label"] == "Ani"

    class Flat(BaseSchema):
        name = fields.String()
        count = fields.Integer()

    flat = Flat()
    assert flat.dump({"name": "a", "count": 2}) == {"name": "a", "count": 2}  # a mapping
    assert flat.dump(SimpleNamespace(name="a")) == {"name": "a"}  # missing attribute: left out
    assert flat.dump([SimpleNamespace(name="a", count=1)], many=True) == [{"name": "a", "count": 1}]
