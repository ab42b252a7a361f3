"""Row ids in URLs: ``<id:entry_id>``, a positive integer the database's integer columns can hold.

Every route taking a row id from its path uses this one converter, so an id past
PostgreSQL's ``integer`` (2**31 - 1) is simply no route (404), never a query that
overflows (500), and the API document gives every such parameter its bounds.
"""
from werkzeug.routing import IntegerConverter

ROW_ID_MIN = 1
ROW_ID_MAX = 2**31 - 1


class RowIdConverter(IntegerConverter):
    """``<id:name>``: digits only, 1 .. 2**31 - 1; anything else does not match the route."""

    def __init__(self, url_map):
        super().__init__(url_map, min=ROW_ID_MIN, max=ROW_ID_MAX)


def row_id_schema():
    """The JSON schema of a row id (path parameters in the API document)."""
    return {"type": "integer", "minimum": ROW_ID_MIN, "maximum": ROW_ID_MAX}
