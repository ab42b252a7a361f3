"""Inserting a row that a unique index may refuse: one statement, no savepoint, no read-back.

``INSERT ... ON CONFLICT DO NOTHING RETURNING *`` (PostgreSQL and SQLite alike)
turns "the database already holds such a row" into an answer instead of an
error: the row comes back when it was stored, nothing when it was refused. A
rule that expects a race (two first submissions of one client, two first
saves of one device) needs no savepoint around its insert, so losing the race
undoes nothing else the request did, and the request runs one statement where
an ORM flush inside a savepoint ran three.
"""
from sqlalchemy import inspect
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import make_transient_to_detached

from guardsvc.extensions import db
from guardsvc.storage.statements import Prepared

_DIALECTS = {"postgresql": postgresql, "sqlite": sqlite}
_PLANS = {}


def _plan(model, dialect_name):
    """(statement, attribute names in column order) for ``model`` on this database, built once."""
    plan = _PLANS.get((model, dialect_name))
    if plan is None:
        table, mapper = model.__table__, inspect(model)
        statement = Prepared(_DIALECTS[dialect_name].insert(table).on_conflict_do_nothing()
                             .returning(*table.columns), writes=True)
        names = tuple(mapper.get_property_by_column(column).key for column in table.columns)
        plan = _PLANS[(model, dialect_name)] = (statement, names)
    return plan


def insert_unless_conflict(model, values):
    """Insert a ``model`` row from ``values`` (column defaults apply).

    Returns the stored row as a persistent ORM object of this session, built
    from what the INSERT returned, or None when a unique index refused it.
    The object is filled as a query's result would be (its attributes set
    directly, no change events: it holds nothing to flush), not through its
    constructor, which records a change per attribute that nothing will read.
    """
    statement, names = _plan(model, db.session.get_bind().dialect.name)
    row = statement.first(values)
    if row is None:
        return None
    return as_entity(model, names, row)


def columns_of(model):
    """``(table columns, their attribute names)`` of ``model``, in table order."""
    table, mapper = model.__table__, inspect(model)
    return tuple(table.columns), tuple(mapper.get_property_by_column(column).key for column in table.columns)


def as_entity(model, names, values):
    """A persistent ``model`` object of this session from its column ``values`` (attributes ``names``).

    Filled as a query's result would be (no constructor, no change events), so it costs what a
    row costs; changed afterwards, it is flushed as any loaded object. When the session already
    holds that row's object, that one is returned, as a query would.
    """
    record = inspect(model).class_manager.new_instance()
    record.__dict__.update(zip(names, values))
    make_transient_to_detached(record)
    session = db.session()
    held = session.identity_map.get(inspect(record).key)
    if held is not None:
        return held
    session.add(record)
    return record


def insert_or_update(model, values, keys, update):
    """Insert a ``model`` row from ``values``, or, when one with the same ``keys`` (a unique index) is
    there, set its ``update`` columns to those values: one statement, whoever wins a race."""
    table = model.__table__
    statement = _DIALECTS[db.session.get_bind().dialect.name].insert(table).values(values)
    statement = statement.on_conflict_do_update(
        index_elements=[table.c[key] for key in keys],
        set_={column: statement.excluded[column] for column in update})
    db.session.execute(statement)
