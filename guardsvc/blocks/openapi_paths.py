"""The API document's entries for forward auth and the administrator's allow entries."""
from marshmallow import fields

from guardsvc.blocks.allow_schemas import AllowCreateSchema, AllowEntrySchema
from guardsvc.listing import MAX_PER_PAGE, PaginationSchema


def paths():
    """``{path: {method: operation}}`` for /api/guard/forward-auth and /api/admin/allows."""
    from guardsvc.openapi import BODY, IDENTITY_HEADERS, envelope, operation, path_param, query_param

    forward_auth = operation(
        "Forward auth untuk reverse proxy: 204 bila klien asli boleh lewat, 403 bila diblokir",
        None, 204, errors=(400, 401, 403, 422), secured=False,
        params=[*IDENTITY_HEADERS, {"in": "header", "name": "X-Guardsvc-Secret", "required": False,
                                    "schema": {"type": "string"}}])
    forward_auth["responses"]["204"] = {"description": "Klien boleh lewat (tanpa isi)"}
    entry = envelope("AllowEntryResponse", AllowEntrySchema)
    page_params = [query_param("active", {"type": "boolean"}),
                   query_param("page", {"type": "integer", "minimum": 1}),
                   query_param("per_page", {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE}),
                   query_param("q", {"type": "string", "maxLength": 200})]
    return {
        "/api/guard/forward-auth": {"get": forward_auth},
        "/api/admin/allows": {
            "get": operation("Daftar izin (administrator)",
                             envelope("AllowEntryPage", AllowEntrySchema, many=True,
                                      pagination=fields.Nested(PaginationSchema, required=True)),
                             errors=(422,), params=page_params),
            "post": operation("Buat daftar izin (administrator)", entry, 201, AllowCreateSchema, BODY),
        },
        "/api/admin/allows/{id}/remove": {"post": operation(
            "Hapus daftar izin (administrator)", entry, errors=(409,),
            params=[path_param("id", {"type": "integer"})])},
    }
