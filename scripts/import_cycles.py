#!/usr/bin/env python3
"""Find import cycles and upward imports inside the guardsvc package.

Usage: ``scripts/import_cycles.py`` prints every cycle and every import that
reaches a higher layer (``LAYERS``), and exits 1 when there is one.

The graph is read from the source with ``ast``, without importing anything.
Every import counts, also one inside a function: a deferred import hides a
cycle from the interpreter, not from the reader. An import names the deepest
guardsvc module it reaches (``from guardsvc.signin import service`` is
``guardsvc.signin.service``); the packages a module sits in are not counted
as imported by it, so ``guardsvc/__init__.py`` (the application factory,
which assembles everything) is only ever a source of edges.

At package level each first-level name under guardsvc is one node: a
subpackage (``accounts``) or a top-level module (``errors``).
"""
import ast
import sys
from pathlib import Path

ROOT_PACKAGE = "guardsvc"
SOURCE = Path(__file__).resolve().parent.parent / ROOT_PACKAGE


# Bottom to top. A module imports its own layer and the layers below it, never one above; every
# first-level name under guardsvc (a package or a top-level module) has its place here.
LAYERS = (
    ("base", {"config", "extensions", "messages", "translation", "stored_texts", "packaged", "features"}),
    ("storage", {"storage"}),
    ("edge", {"web", "cli"}),
    ("shared services", {"openapi", "ratelimits", "metrics", "retention"}),
    ("features", {"accounts", "appeals", "audit", "blocks", "crowdsec", "outbox", "pages", "passkeys", "places",
                  "sessions", "selfrelease", "signin", "trust", "twofactor", "webhooks", "nodes"}),
    ("desk", {"admin"}),
    ("factory", {ROOT_PACKAGE, "models", "command_line", "gunicorn_conf"}),
)


def layer_of(name):
    """The index in LAYERS of a first-level name, or None when it has no place yet."""
    for index, (_, members) in enumerate(LAYERS):
        if name in members:
            return index
    return None


def module_files(source=SOURCE):
    """``{module name: path}`` of every module of the package."""
    modules = {}
    for path in sorted(source.rglob("*.py")):
        parts = list(path.relative_to(source.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _resolve(name, known):
    """The deepest known module that ``name`` (a dotted path) starts with, or None."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def _imported_names(tree, module, is_package):
    """Dotted names an AST imports (``from x import y`` gives ``x.y``: y may be a module)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                yield f"{base}.{alias.name}" if alias.name != "*" else base


def module_graph(source=SOURCE):
    """``{module: {modules it imports}}`` within the package."""
    files = module_files(source)
    graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for name in _imported_names(tree, module, path.name == "__init__.py"):
            if name != ROOT_PACKAGE and not name.startswith(ROOT_PACKAGE + "."):
                continue
            target = _resolve(name, files)
            if target is not None and target != ROOT_PACKAGE and target != module:
                targets.add(target)
        graph[module] = targets
    return graph


def package_of(module):
    """``guardsvc.accounts.views`` -> ``accounts``; ``guardsvc.web.errors`` -> ``errors``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_graph(graph):
    """The module graph folded onto first-level packages (edges inside a package dropped)."""
    folded = {}
    for module, targets in graph.items():
        source = package_of(module)
        folded.setdefault(source, set())
        for target in targets:
            if package_of(target) != source:
                folded[source].add(package_of(target))
    return folded


def layer_problems(graph):
    """``(source, target, why)`` for every import that goes up a layer, and every unplaced name."""
    problems = []
    folded = package_graph(graph)
    for source in sorted(folded):
        if layer_of(source) is None:
            problems.append((source, None, "has no layer in LAYERS"))
            continue
        for target in sorted(folded[source]):
            if layer_of(target) is None:
                problems.append((source, target, f"{target} has no layer in LAYERS"))
            elif layer_of(target) > layer_of(source):
                problems.append((source, target, f"{LAYERS[layer_of(source)][0]} imports "
                                                 f"{LAYERS[layer_of(target)][0]}"))
    return problems


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan), each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def edges_within(graph, component):
    """The import edges that hold a cycle together, for the report."""
    members = set(component)
    return sorted((source, target) for source in component for target in graph[source] & members)


def main():
    graph = module_graph()
    problems = 0
    for label, view in (("module", graph), ("package", package_graph(graph))):
        for component in cycles(view):
            problems += 1
            print(f"{label} cycle: {' <-> '.join(component)}")
            for source, target in edges_within(view, component):
                print(f"    {source} -> {target}")
    for source, target, why in layer_problems(graph):
        problems += 1
        print(f"upward import: {source} -> {target}: {why}" if target else f"unplaced: {source} {why}")
    if not problems:
        print("no import cycles, no upward imports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
