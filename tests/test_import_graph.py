"""No import cycles inside guardsvc: not between packages, not between modules."""
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "import_cycles.py"


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
