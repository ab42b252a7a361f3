"""Features register themselves (guardsvc/features.py): the factory walks them and imports none.

Every blueprint and command a module defines reaches the app, every audited action is named by the
feature that records it, and the request hooks features add keep their order.
"""
import ast
import importlib
import pkgutil
from pathlib import Path

import click
import pytest
from flask import Blueprint

import guardsvc
from guardsvc.features import Feature, discover, each, register, registered
from tests.admin.test_admin_words import actions_recorded_in_the_code

SOURCE = Path(guardsvc.__file__).resolve().parent
# What the factory (and the shared machinery the features register into) may import: nothing of a feature.
FEATURE_PACKAGES = {"accounts", "admin", "appeals", "audit", "blocks", "crowdsec", "outbox", "pages", "passkeys",
                    "places", "sessions", "selfrelease", "signin", "trust", "twofactor", "webhooks"}


def _modules():
    return [importlib.import_module(module.name) for module in pkgutil.walk_packages(guardsvc.__path__, "guardsvc.")
            if module.name != "guardsvc.gunicorn_conf"]


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


@pytest.mark.parametrize("module", ["__init__.py", "models.py", "features.py", "cli/worker.py",
                                    "retention/service.py", "retention/cli.py", "outbox/rounds.py",
                                    "accounts/account_page.py", "metrics/door.py"])
def test_the_factory_and_the_registries_import_no_feature_by_name(module):
    named = {name.split(".")[1] for name in _imports(SOURCE / module) if name.startswith("guardsvc.")}
    home = module.split("/")[0] if "/" in module else None
    assert not (named - {home}) & FEATURE_PACKAGES, module


def test_every_feature_package_is_discovered_once(app):
    found = {feature.name for feature in registered(app)}
    with_module = {path.parent.name for path in SOURCE.glob("*/feature.py")}
    assert found == with_module
    assert FEATURE_PACKAGES <= found
    assert [feature.name for feature in discover()] == sorted(found)


def test_every_blueprint_a_module_defines_is_registered(app):
    defined = {value.name for module in _modules() for value in vars(module).values() if isinstance(value, Blueprint)}
    assert defined and defined <= set(app.blueprints)


def test_every_command_a_module_defines_reaches_flask(app):
    def reachable(group):
        for command in group.commands.values():
            yield command
            if isinstance(command, click.Group):
                yield from reachable(command)

    with app.app_context():
        known = {id(command) for command in reachable(app.cli)}
    defined = [(module.__name__, name) for module in _modules() for name, value in vars(module).items()
               if isinstance(value, click.Command) and id(value) not in known
               and module.__name__ != "guardsvc.command_line"]  # the `guardsvc` script itself
    assert defined == []


def test_the_worker_runs_every_features_rounds(app):
    with app.app_context():
        assert {round_.name for round_ in each("worker_rounds")} == {
            "mail delivery", "purge", "crowdsec", "webhooks", "self-release follow-up"}


def test_every_audited_action_is_named_by_the_feature_that_records_it(app):
    by_feature = {feature.name: set(feature.audit_actions) for feature in registered(app)}
    for action in actions_recorded_in_the_code():
        owners = [name for name, actions in by_feature.items() if action in actions]
        assert len(owners) == 1, (action, owners)


def test_a_features_request_hooks_come_after_the_edges_and_the_csrf_check_before_the_guard(app):
    order = [f"{hook.__module__}.{hook.__name__}" for hook in app.before_request_funcs[None]]
    address = order.index("guardsvc.web.addresses.require_readable_address")
    csrf = order.index("guardsvc.accounts.auth.protect_against_csrf")
    guard = order.index("guardsvc.blocks.guard.enforce_blocks")
    assert order.index("guardsvc.web.request_logs.assign_request_id") < address < csrf < guard
    assert order[-1] == "guardsvc.metrics.door._start_clock"  # times everything after it


def test_no_table_is_defined_outside_a_model_module():
    from guardsvc.models import model_modules

    defining = sorted(module.__name__ for module in _modules() if any(
        isinstance(value, type) and "__tablename__" in vars(value) for value in vars(module).values()
        if getattr(value, "__module__", None) == module.__name__))
    assert defining and set(defining) <= set(model_modules())


def test_two_features_may_not_share_a_name_or_a_key(app):
    from flask import Flask

    twice = Flask("twice")
    with pytest.raises(ValueError, match="share a name"):
        register(twice, [Feature("x"), Feature("x")])
    clash = Flask("clash")
    register(clash, [Feature("a", gauges={"g": ("", int)}), Feature("b", gauges={"g": ("", int)})])
    with pytest.raises(ValueError, match="'g' is declared twice"):
        each("gauges", clash)
    assert each("worker_rounds", clash) == () and each("mail_tasks", Flask("empty")) == {}
