"""What a feature package brings to the app, said once in its ``feature.py``, and the app's list of them.

A package under guardsvc that brings something (a door, a command, a retention
rule, a round of the worker, ...) declares it in ``<package>/feature.py`` as
``FEATURE = Feature(...)``. The factory finds those modules (``discover``),
registers each feature's blueprints and commands and runs its ``init_app``
(``register``); everything else is read where it is used, through ``each``:
the retention rules by ``flask purge``, the rounds by ``flask worker``, the
account page's sections by accounts, the audit log's words by the desk, the
scrape-time gauges by ``/metrics``. So the factory and those readers import no
feature, and a new feature is one new ``feature.py``.

Features are registered in the order of their package names; the one order
that matters between them (a feature's request hooks) is held by a test.
"""
import importlib
import importlib.util
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from flask import current_app

EXTENSION = "guardsvc.features"  # app.extensions: the registered features, in order
MODULE = "feature"  # <package>.feature holds FEATURE


@dataclass(frozen=True)
class Feature:
    """Everything one feature package adds to the app.

    ``init_app(app)``: set-up beyond blueprints and commands (request hooks,
    template globals), run when the feature is registered. ``commands``: click
    commands or groups added to ``flask``. ``retention_rules``:
    ``guardsvc.retention.service.Rule``\\ s. ``worker_rounds``:
    ``guardsvc.cli.background.Round``\\ s of ``flask worker``. ``mail_tasks``:
    ``{name: task}`` the mail deliverer runs at the start of each round (a digest
    it then delivers). ``audit_actions``: ``{action: message}``, how the audit
    log names the actions this feature records. ``gauges``: ``{name: (help,
    function)}`` computed at each ``/metrics`` scrape. ``account_sections``:
    ``guardsvc.accounts.account_page.Section``\\ s of ``/akun``. ``worker_starts``: callables
    ``(app)`` run once when ``flask worker`` starts, for work of their own beside the rounds (the
    node's reporter thread).
    """

    name: str
    blueprints: tuple = ()
    commands: tuple = ()
    init_app: Callable | None = None
    retention_rules: tuple = ()
    worker_rounds: tuple = ()
    mail_tasks: Mapping[str, Callable] = field(default_factory=dict)
    audit_actions: Mapping[str, Any] = field(default_factory=dict)
    gauges: Mapping[str, tuple] = field(default_factory=dict)
    account_sections: tuple = ()
    worker_starts: tuple = ()


def discover(package="guardsvc"):
    """The ``FEATURE`` of every ``<package>.<name>.feature`` module, in the order of the names."""
    root = importlib.import_module(package)
    found = []
    for module in sorted(pkgutil.iter_modules(root.__path__), key=lambda module: module.name):
        name = f"{package}.{module.name}.{MODULE}"
        if module.ispkg and importlib.util.find_spec(name) is not None:
            found.append(importlib.import_module(name).FEATURE)
    return found


def register(app, features):
    """Add ``features`` to ``app``: each one's ``init_app``, blueprints and commands, in order."""
    names = [feature.name for feature in features]
    if len(set(names)) != len(names):
        raise ValueError(f"two features share a name: {names}")
    app.extensions[EXTENSION] = tuple(features)
    for feature in features:
        if feature.init_app is not None:
            feature.init_app(app)
        for blueprint in feature.blueprints:
            app.register_blueprint(blueprint)
        for command in feature.commands:
            app.cli.add_command(command)


def registered(app=None):
    """The features of ``app`` (the current app by default)."""
    return (app or current_app).extensions.get(EXTENSION, ())


def each(what, app=None):
    """Every feature's ``what`` (a field of ``Feature``) together: tuples chained, mappings merged.

    Read once per app, then kept. Two features naming the same key of a mapping is a mistake, refused.
    """
    app = app or current_app
    kept = app.extensions.setdefault(EXTENSION + ".each", {})
    if what not in kept:
        kept[what] = _together(what, registered(app))
    return kept[what]


def _together(what, features):
    if isinstance(getattr(_NOTHING, what), tuple):
        return tuple(item for feature in features for item in getattr(feature, what))
    merged = {}
    for feature in features:
        for key, value in getattr(feature, what).items():
            if key in merged:
                raise ValueError(f"{what}: {key!r} is declared twice (feature {feature.name!r})")
            merged[key] = value
    return merged


_NOTHING = Feature("")
