"""The API document's entry for forward auth (its success is an empty 204, unlike the others)."""


def paths():
    """``{path: {method: operation}}`` for /api/guard/forward-auth."""
    from guardsvc.openapi import IDENTITY_HEADERS, operation

    op = operation("Forward auth untuk reverse proxy: 204 bila klien asli boleh lewat, 403 bila diblokir",
                   None, 204, errors=(400, 401, 403, 422), secured=False,
                   params=[*IDENTITY_HEADERS, {"in": "header", "name": "X-Guardsvc-Secret", "required": False,
                                               "schema": {"type": "string"}}])
    op["responses"]["204"] = {"description": "Klien boleh lewat (tanpa isi)"}
    return {"/api/guard/forward-auth": {"get": op}}
