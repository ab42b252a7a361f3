"""Structural rules the API document must keep, as a list of readable problems.

``document_problems(document, routes)`` is what the suite runs over the real
document; tests also feed it deliberately broken documents to see it object.
"""
import re

PROBES = frozenset({"/healthz", "/readyz"})
HTTP_METHODS = frozenset({"get", "put", "post", "delete", "patch", "options", "head", "trace"})
OPERATION_ID = re.compile(r"^[a-z][A-Za-z0-9]*$")
HOW_TO_DOCUMENT = "declare its view with @operation(...) (docs/api.md, 'API document')"


def template(path):
    """``/x/<int(max=9):id>/y`` and ``/x/{id}/y`` both become ``/x/{}/y``."""
    return re.sub(r"\{[^}]+\}", "{}", re.sub(r"<[^>]+>", "{}", path))


def json_routes(app):
    """``{(method, template)}`` of every route of the JSON door: everything under /api/, and the probes."""
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/") or rule.rule in PROBES:
            routes.update((method.lower(), template(rule.rule)) for method in rule.methods - {"HEAD", "OPTIONS"})
    return routes


def operations(document):
    """``(path, method, operation)`` for every operation of ``document``."""
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method, operation


def document_problems(document, routes):
    """Every rule ``document`` breaks; an empty list means it is sound."""
    return (_unresolved_refs(document) + _self_references(document) + _unused_components(document)
            + _uncovered_routes(document, routes) + _operation_problems(document))


def _walk(node, where=""):
    """``(where, $ref)`` for every reference under ``node``."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield where, node["$ref"]
        for key, value in node.items():
            yield from _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{where}/{index}")


def _resolve(document, ref):
    if not ref.startswith("#/"):
        return None
    node = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _unresolved_refs(document):
    return [f"{where}: $ref {ref} does not resolve" for where, ref in _walk(document)
            if _resolve(document, ref) is None]


def _component(ref):
    """``("schemas", "Foo")`` for ``#/components/schemas/Foo``."""
    parts = ref.split("/")
    return (parts[2], parts[3]) if len(parts) == 4 and parts[:2] == ["#", "components"] else None


def _component_refs(node):
    return {component for _, ref in _walk(node) if (component := _component(ref))}


def _self_references(document):
    """A component that refers to itself, directly or through others (the API has no recursive shapes)."""
    components = document.get("components", {})
    problems = []
    for kind, members in components.items():
        for name, body in members.items():
            start = (kind, name)
            if start in _component_refs(body):
                problems.append(f"components/{kind}/{name} refers to itself")
                continue
            seen, todo = set(), list(_component_refs(body))
            while todo:
                current = todo.pop()
                if current == start:
                    problems.append(f"components/{kind}/{name} refers to itself through other components")
                    break
                if current not in seen:
                    seen.add(current)
                    todo.extend(_component_refs(components.get(current[0], {}).get(current[1], {})))
    return problems


def _used_security_schemes(document):
    requirements = list(document.get("security", []))
    for _, _, operation in operations(document):
        requirements.extend(operation.get("security", []))
    return {("securitySchemes", name) for requirement in requirements for name in requirement}


def _unused_components(document):
    components = document.get("components", {})
    outside = {key: value for key, value in document.items() if key != "components"}
    reached, todo = set(), list(_component_refs(outside))
    while todo:
        current = todo.pop()
        if current not in reached:
            reached.add(current)
            todo.extend(_component_refs(components.get(current[0], {}).get(current[1], {})))
    reached |= _used_security_schemes(document)
    return [f"components/{kind}/{name} is never used" for kind, members in components.items()
            for name in members if (kind, name) not in reached]


def _uncovered_routes(document, routes):
    documented = {(method, template(path)) for path, method, _ in operations(document)}
    missing = [f"{method.upper()} {path} is not documented: {HOW_TO_DOCUMENT}"
               for method, path in sorted(routes - documented)]
    phantom = [f"{method.upper()} {path} is documented but the app has no such route"
               for method, path in sorted(documented - routes)]
    return missing + phantom


def _operation_problems(document):
    problems = []
    declared_tags = {tag["name"] for tag in document.get("tags", [])}
    schemes = document.get("components", {}).get("securitySchemes", {})
    ids = [operation.get("operationId") for _, _, operation in operations(document)]
    for path, method, operation in operations(document):
        label = f"{method.upper()} {path}"
        operation_id = operation.get("operationId")
        if not isinstance(operation_id, str) or not OPERATION_ID.match(operation_id):
            problems.append(f"{label}: operationId {operation_id!r} is missing or not camelCase")
        elif ids.count(operation_id) > 1:
            problems.append(f"{label}: operationId {operation_id!r} is used more than once")
        if not operation.get("summary"):
            problems.append(f"{label}: no summary")
        tags = operation.get("tags") or []
        if not tags or not set(tags) <= declared_tags:
            problems.append(f"{label}: tags {tags} are missing or not declared at the top level")
        if "security" not in operation:
            problems.append(f"{label}: says nothing about security (use [] for a public operation)")
        for requirement in operation.get("security", []):
            problems.extend(f"{label}: unknown security scheme {name!r}" for name in requirement
                            if name not in schemes)
        responses = operation.get("responses", {})
        if "500" not in responses:
            problems.append(f"{label}: 500 is not listed")
        if "default" in responses:
            problems.append(f"{label}: a 'default' response would hide undocumented statuses")
        for status, response in responses.items():
            if not response.get("description"):
                problems.append(f"{label} {status}: no description")
            for name, link in response.get("links", {}).items():
                if link.get("operationId") not in ids:
                    problems.append(f"{label} {status}: link {name!r} names an unknown operation")
    return problems
