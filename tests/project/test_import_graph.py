"""No import cycles inside guardsvc: not between packages, not between modules."""
import ast
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "import_cycles.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("import_cycles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def graph_tools():
    return _load_script()


def test_no_cycle_between_modules(graph_tools):
    found = graph_tools.cycles(graph_tools.module_graph())
    assert found == []


def test_no_cycle_between_packages(graph_tools):
    found = graph_tools.cycles(graph_tools.package_graph(graph_tools.module_graph()))
    assert found == []


def test_accounts_draws_its_page_without_the_features_on_it(graph_tools):
    folded = graph_tools.package_graph(graph_tools.module_graph())
    assert not folded["accounts"] & {"signin", "trust", "twofactor"}


def test_the_checker_sees_cycles_through_deferred_imports(graph_tools, tmp_path):
    package = tmp_path / "guardsvc"
    (package / "first").mkdir(parents=True)
    (package / "second").mkdir()
    for path in (package, package / "first", package / "second"):
        (path / "__init__.py").write_text("")
    (package / "first" / "views.py").write_text("from guardsvc.second import service\n")
    (package / "second" / "service.py").write_text(
        "def later():\n    from guardsvc.first.views import thing\n")
    (package / "tools.py").write_text("from . import helpers\n")
    (package / "helpers.py").write_text("from .tools import x\n")
    graph = graph_tools.module_graph(package)
    assert graph_tools.cycles(graph) == [["guardsvc.first.views", "guardsvc.second.service"],
                                         ["guardsvc.helpers", "guardsvc.tools"]]
    assert graph_tools.cycles(graph_tools.package_graph(graph)) == [
        ["first", "second"], ["helpers", "tools"]]


def test_no_module_imports_a_higher_layer(graph_tools):
    assert graph_tools.layer_problems(graph_tools.module_graph()) == []


def test_every_layer_package_says_what_it_holds_and_may_import(graph_tools):
    source = graph_tools.SOURCE
    for _, members in graph_tools.LAYERS:
        for name in members:
            init = source / name / "__init__.py"
            if init.exists():
                doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
                assert "import" in doc.lower(), f"{name}/__init__.py: say what it may import"


def test_the_checker_sees_upward_and_unplaced_imports(graph_tools, tmp_path):
    package = tmp_path / "guardsvc"
    for folder in ("storage", "web"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "storage" / "database.py").write_text("from guardsvc.web.errors import GuardError\n")
    (package / "web" / "errors.py").write_text("from guardsvc.storage import database\n")
    (package / "loose.py").write_text("from guardsvc.web import errors\n")
    graph = graph_tools.module_graph(package)
    assert graph_tools.layer_problems(graph) == [
        ("loose", None, "has no layer in LAYERS"),
        ("storage", "web", "storage imports edge"),
    ]
