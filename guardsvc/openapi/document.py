"""The OpenAPI 3 document of every JSON endpoint, served at ``/api/openapi.json``.

Built from two things that cannot drift apart: the app's routes (paths, path
parameters, methods, whether the block guard runs) and each view's own
declaration (``@operation(...)``, ``guardsvc/web/operations.py``: what it is
for, who may call it, the marshmallow schemas it loads and answers with, its
limits), the same declaration that loads its body and checks its caller.
"""
import dataclasses
import re

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin, resolver
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask import Blueprint, current_app, jsonify, request
from marshmallow import Schema, fields
from werkzeug.routing import parse_converter_args

from guardsvc.web.doors import endpoint_is_guarded, json_door, never_guarded
from guardsvc.web.health import SYSTEM
from guardsvc.web.identity import DEVICE_HEADER, LOCAL_IP_HEADER
from guardsvc.web.operations import declared_operation, operation
from guardsvc.web.row_ids import row_id_schema
from guardsvc.web.schema_fields import ADDRESS_DESCRIPTION, address_pattern
from guardsvc.openapi.fields import DEVICE_ID_PATTERN, describe_custom_fields, rules_schema
from guardsvc.openapi.responses import (ERROR_SCHEMAS, RATE_LIMIT_HEADER_COMPONENTS, RATE_LIMIT_HEADERS,
                                        RATE_LIMIT_NOTE, UNSAFE_METHODS, failure_response, failures, schema_ref)

bp = never_guarded(json_door(Blueprint("openapi", __name__)))

_VARIABLE = re.compile(r"<(?:(?P<converter>\w+)(?:\((?P<args>[^)]*)\))?:)?(?P<name>\w+)>")
SUCCESS_DESCRIPTIONS = {200: "Berhasil.", 201: "Berhasil dibuat.", 204: "Berhasil, tanpa isi."}
IDENTITY_HEADERS = (
    {"in": "header", "name": DEVICE_HEADER, "required": False,
     "description": "Id perangkat (mis. UUID); tanpa header ini dipakai cookie perangkat peramban.",
     "schema": {"type": "string", "pattern": DEVICE_ID_PATTERN}},
    # The formats name the usual forms: the pattern, what the service reads, says the rest (a zone
    # id). Without them schemathesis 4.32's coverage phase draws `0` for a header whose pattern
    # holds a literal dot, and calls its refusal a valid request rejected.
    {"in": "header", "name": LOCAL_IP_HEADER, "required": False,
     "description": "Alamat IP LAN perangkat. " + ADDRESS_DESCRIPTION,
     "schema": {"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"},
                                            {"pattern": address_pattern(spaces="")}]}},
)
# The name of a query given as one object (its fields are the query's parameters, ``style: form``):
# how the document says a rule across them (``BaseSchema.rules``).
QUERY_OBJECT = "query"
SECURITY_SCHEMES = {
    "bearerAuth": {"type": "http", "scheme": "bearer", "description":
                   "Token akses pribadi (`POST /api/auth/tokens`, halaman /akun, atau "
                   "`flask --app guardsvc tokens create`). Hanya berlaku untuk /api/...; halaman dan formulir "
                   "mengabaikan header Authorization. Token yang sah tidak perlu X-CSRFToken."},
    "sessionCookie": {"type": "apiKey", "in": "cookie", "name": "guardsvc_session", "description":
                      "Sesi masuk web (/masuk). POST dan DELETE lewat cookie juga memerlukan X-CSRFToken."},
    "csrfToken": {"type": "apiKey", "in": "header", "name": "X-CSRFToken", "description":
                  "Token CSRF dari `<meta name=\"csrf-token\">` halaman, untuk permintaan lewat cookie."},
}


def init_openapi(app):
    """Serve the document of every declared view."""
    app.register_blueprint(bp)


def registered_operations(app):
    """Every declared operation of ``app``, with its endpoint, in the order the views were registered."""
    return [dataclasses.replace(declared, endpoint=endpoint) for endpoint, view in app.view_functions.items()
            if (declared := declared_operation(view)) is not None]


@bp.get("/api/openapi.json")
@operation("getOpenApiDocument", "Dokumen OpenAPI 3 ini", SYSTEM,
           {200: {"type": "object", "required": ["openapi", "info", "paths"]}}, database=False,
           description="`servers` menunjuk alamat tempat dokumen ini diminta (atau GUARDSVC_BASE_URL bila diatur).")
def openapi_document():
    """The OpenAPI 3 document; its server is where this request arrived (or GUARDSVC_BASE_URL)."""
    document = current_app.extensions.get("guardsvc.openapi.document")
    if document is None:
        document = current_app.extensions["guardsvc.openapi.document"] = build_document(current_app)
    return jsonify({**document, "servers": [{"url": server_url()}]})


def server_url():
    """The configured public address, else the address this request reached (proxies per PROXY_COUNT)."""
    if current_app.config.get("BASE_URL_CONFIGURED"):
        return current_app.config["BASE_URL"]
    return request.url_root.rstrip("/")


def build_document(app, operations=None):
    """Assemble the document of every declared operation, or of ``operations`` (servers are added per request)."""
    builder = _Builder(app)
    for declared in registered_operations(app) if operations is None else operations:
        builder.add(declared)
    return builder.to_dict()


class _SchemaNames:
    """apispec's names (``FooSchema`` -> ``Foo``), refusing two schemas under one name.

    ``...Response`` is kept for envelopes, so a payload can never be named like
    the envelope that carries it (which once made envelopes refer to themselves).
    """

    def __init__(self):
        self.classes = {}

    def __call__(self, schema):
        schema_cls = resolve_schema_cls(schema)
        name = resolver(schema_cls)
        if name.endswith("Response"):
            raise ValueError(f"schema {schema_cls.__name__}: the 'Response' suffix is kept for envelopes")
        if self.classes.setdefault(name, schema_cls) is not schema_cls:
            raise ValueError(f"two schemas would both be named {name!r}: {schema_cls} and {self.classes[name]}")
        return name


class _Builder:
    def __init__(self, app):
        self.names = _SchemaNames()
        self.plugin = MarshmallowPlugin(schema_name_resolver=self.names)
        self.spec = APISpec(
            title="guardsvc", version="1.0.0", openapi_version="3.0.3", plugins=[self.plugin],
            info={"description": "Perangkat terpercaya dan jalan kembali yang adil bagi klien yang diblokir. "
                                 "Setiap kegagalan berbentuk `{success: false, message, errors?}`; metode yang "
                                 "tidak dijelaskan di sini dijawab 405 dengan header Allow. `message` dan pesan per "
                                 "kolom mengikuti header Accept-Language (id, en); nama kolom dan kode status tidak "
                                 "pernah berubah."})
        describe_custom_fields(self.plugin)
        self.rules = {}
        for rule in app.url_map.iter_rules():
            self.rules.setdefault(rule.endpoint, []).append(rule)
        self.envelopes = {}
        self.tags = {}
        self.documented = set()
        self.rate_limited = False
        self.query_objects = set()  # components that are a query's parameters

    def add(self, operation):
        rules = self.rules.get(operation.endpoint)
        if not rules:
            raise LookupError(f"API document: no route for endpoint {operation.endpoint!r}")
        for rule in rules:
            method = _method(rule, operation)
            path, parameters = _path(rule, operation)
            if (method, path) in self.documented:
                raise ValueError(f"API document: {method.upper()} {path} is described twice")
            self.documented.add((method, path))
            if self.tags.setdefault(operation.tag.name, operation.tag.description) != operation.tag.description:
                raise ValueError(f"API document: two tags are both named {operation.tag.name!r}")
            self.spec.path(path=path, operations={
                method: self._operation(operation, method, parameters, endpoint_is_guarded(rule.endpoint))})

    def _operation(self, operation, method, parameters, guarded):
        extra_headers = RATE_LIMIT_HEADERS if operation.rate_limited else {}
        self.rate_limited = self.rate_limited or operation.rate_limited
        responses = {}
        for status, body in operation.responses.items():
            responses[str(status)] = self._success(status, body, operation, extra_headers)
        for status, answer in failures(operation, method, guarded).items():
            for shape in answer.shapes:
                self._error_component(shape)
            responses[str(status)] = failure_response(answer, extra_headers)
        if operation.query is not None:
            parameters.append(self._query(operation.query))
        if guarded or operation.identity:
            parameters.extend(dict(header) for header in IDENTITY_HEADERS)
        document = {"operationId": operation.operation_id, "summary": operation.summary,
                    "tags": [operation.tag.name], "parameters": parameters, "responses": responses,
                    "security": _security(operation, method)}
        description = _description(operation)
        if description:
            document["description"] = description
        if operation.body is not None:
            # A body with a required field cannot be left out: an empty body reads as `{}` and fails.
            required = _has_required_field(operation.body)
            document["requestBody"] = {
                "required": required,
                "description": ("Wajib: isi" if required else "Isi") + " kosong dibaca sebagai `{}`.",
                "content": {"application/json": {"schema": operation.body}}}
        return document

    def _query(self, schema):
        """The query's parameters: one each, or, when a rule spans them, one object holding them all
        (``style: form``, ``explode``: still ``?ip=...&device_id=...``) whose schema says the rule."""
        if not resolve_schema_cls(schema).rules:
            return {"in": "query", "schema": schema}
        reference = self.plugin.converter.resolve_nested_schema(schema)
        self.query_objects.add(reference["$ref"].rsplit("/", 1)[1])
        return {"in": "query", "name": QUERY_OBJECT, "required": True, "style": "form", "explode": True,
                "schema": reference}

    def _success(self, status, body, operation, extra_headers):
        response = {"description": SUCCESS_DESCRIPTIONS.get(status, "Berhasil.")}
        if body is not None:
            schema = body if isinstance(body, dict) else self._envelope(body)
            response["content"] = {"application/json": {"schema": schema}}
        if extra_headers:
            response["headers"] = dict(extra_headers)
        if operation.links:
            response["links"] = {name: _link(link) for name, link in operation.links.items()}
        return response

    def _envelope(self, envelope):
        name = envelope.name or self.names(envelope.data) + ("ListResponse" if envelope.many else "Response")
        if not name.endswith("Response"):
            raise ValueError(f"envelope {name!r}: envelope names end with 'Response'")
        if self.envelopes.setdefault(name, envelope) != envelope:
            raise ValueError(f"two different envelopes are both named {name!r}")
        if name not in self.spec.components.schemas:
            self.spec.components.schema(name, schema=_envelope_schema(name, envelope))
        return schema_ref(name)

    def _error_component(self, name):
        if name not in self.spec.components.schemas:
            self.spec.components.schema(name, schema=ERROR_SCHEMAS[name])

    def to_dict(self):
        for name, description in self.tags.items():
            self.spec.tag({"name": name, "description": description})
        for name, scheme in SECURITY_SCHEMES.items():
            self.spec.components.security_scheme(name, scheme)
        for name, header in RATE_LIMIT_HEADER_COMPONENTS.items() if self.rate_limited else ():
            self.spec.components.header(name, header)
        document = self.spec.to_dict()
        self._say_rules(document)
        close_response_schemas(document)
        return document

    def _say_rules(self, document):
        """Each schema's rules across fields (``BaseSchema.rules``), in its component.

        A query's parameters are text or absent, never null: a query object's properties are not
        nullable (the text ``null`` would be read as text).
        """
        schemas = document.get("components", {}).get("schemas", {})
        for name in self.query_objects:
            for prop in schemas[name].get("properties", {}).values():
                prop.pop("nullable", None)
                if prop.get("default", 0) is None:
                    del prop["default"]
        for name, schema_cls in self.names.classes.items():
            if name in schemas and schema_cls.rules:
                schemas[name].update(rules_schema(schema_cls, schemas[name].get("properties", {})))


def _envelope_schema(name, envelope):
    attrs = {"success": fields.Boolean(required=True, metadata={"enum": [True]})}
    if envelope.message:
        attrs["message"] = fields.String(required=True, metadata={"description": "Konfirmasi untuk manusia."})
    if envelope.data is not None:
        nested = fields.Nested(envelope.data)
        attrs["data"] = fields.List(nested, required=True) if envelope.many else fields.Nested(
            envelope.data, required=True)
    attrs.update(envelope.extra)
    return Schema.from_dict(attrs, name=name)


def _method(rule, operation):
    methods = sorted(method.lower() for method in rule.methods - {"HEAD", "OPTIONS"})
    if operation.method is not None:
        if operation.method.lower() not in methods:
            raise LookupError(f"API document: {operation.endpoint!r} does not answer {operation.method}")
        return operation.method.lower()
    if len(methods) != 1:
        raise LookupError(f"API document: say which method of {operation.endpoint!r} ({methods}) is meant")
    return methods[0]


def _path(rule, operation):
    """``/x/<id:token_id>`` -> (``/x/{id}``, [its path parameter])."""
    parameters = []
    unused = set(operation.path_params)

    def placeholder(match):
        variable = match["name"]
        unused.discard(variable)
        given = operation.path_params.get(variable)
        name = given.name if given else variable
        parameter = {"in": "path", "name": name, "required": True,
                     "schema": dict(given.schema) if given and given.schema else
                     _converter_schema(match["converter"], match["args"])}
        if given and given.description:
            parameter["description"] = given.description
        if given and given.example is not None:
            parameter["example"] = given.example
        parameters.append(parameter)
        return "{" + name + "}"

    path = _VARIABLE.sub(placeholder, rule.rule)
    if unused:
        raise LookupError(f"API document: {operation.endpoint!r} has no path variable {sorted(unused)}")
    return path, parameters


def _converter_schema(converter, args):
    if converter == "id":
        return row_id_schema()
    if converter == "int":
        _, options = parse_converter_args(args or "")
        schema = {"type": "integer", "minimum": options.get("min") or 0}
        if options.get("max") is not None:
            schema["maximum"] = options["max"]
        return schema
    if converter == "path":
        return {"type": "string", "minLength": 1}
    return {"type": "string", "pattern": "^[^/]+$"}


def _has_required_field(body):
    """A field is required, or a rule asks for one of several (an empty body gives none)."""
    if isinstance(body, dict):
        return bool(body.get("required"))
    schema_cls = resolve_schema_cls(body)
    return any(field.required for field in schema_cls().fields.values()) or any(
        rule.least for rule in schema_cls.rules)


def _security(operation, method):
    if operation.roles is None:
        return []
    cookie = {"sessionCookie": [], "csrfToken": []} if method in UNSAFE_METHODS else {"sessionCookie": []}
    return [{"bearerAuth": []}, cookie]


def _description(operation):
    parts = [operation.description] if operation.description else []
    if operation.roles is not None:
        parts.append("Peran yang diizinkan: " + ", ".join(operation.roles) + ".")
    if operation.rate_limited:
        parts.append(RATE_LIMIT_NOTE.strip())
    return " ".join(parts)


def _link(link):
    rendered = {"operationId": link.operation_id, "parameters": dict(link.parameters)}
    if link.description:
        rendered["description"] = link.description
    return rendered


def _refs(node):
    """Every component schema name ``node`` refers to, directly."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.rsplit("/", 1)[1]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _reachable(document, roots):
    schemas = document.get("components", {}).get("schemas", {})
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name not in seen and name in schemas:
            seen.add(name)
            todo.extend(_refs(schemas[name]))
    return seen


def close_response_schemas(document):
    """Answers carry exactly the documented fields: close every object only answers use.

    Request schemas stay open (unknown fields are ignored on input).
    """
    from_requests, from_responses = set(), set()
    for operations in document["paths"].values():
        for operation in operations.values():
            from_requests.update(_refs(operation.get("requestBody", {})))
            from_requests.update(_refs(operation.get("parameters", [])))
            from_responses.update(_refs(operation.get("responses", {})))
    schemas = document.get("components", {}).get("schemas", {})
    for name in _reachable(document, from_responses) - _reachable(document, from_requests):
        schema = schemas[name]
        if "properties" in schema:
            schema.setdefault("additionalProperties", False)
