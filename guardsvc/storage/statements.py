"""Prebuilt statements of the hot paths, run on the request's own connection through the driver.

A status check, a submission and a save-my-ip run a handful of statements built once at import.
Through ``Session.execute`` each of them went through SQLAlchemy's execution machinery every time:
the cached compiled form looked up by its cache key, its parameters rebuilt
(``construct_params``), an execution context and a result object made: under a flood of status
checks that was about a third of a worker's time, more than the database's own work. Here a
statement is compiled once per database kind and keeps what its executions need (the SQL text, the
order of its parameters, the type conversions of its values and of its result's columns), and each
execution hands the SQL and values straight to a cursor of the connection the session already
uses, in the session's transaction: one commit per request as before, and every wait still bounded
by the request's deadline (the connection and the pool are the same ones).

Failures are SQLAlchemy's errors as ``Session.execute`` raises them (a lost connection is
invalidated), statements are seen by ``before_cursor_execute`` listeners (the statement budgets
count them), and a write marks the session as written, so the request commits.

Only Core statements without expanding parameters (``IN`` lists are bound one value each) and
with defaults that are plain values or callables of no argument.
"""
import collections
import threading

from flask import g, has_request_context
from sqlalchemy.exc import DBAPIError

from guardsvc.extensions import db
from guardsvc.storage.transaction import READER as _READER, keep_reader, mark_written


_CONNECTION = "guardsvc.statements.connection"


def _connection_of(session):
    """``session.connection()``, asked of SQLAlchemy once per transaction, not once per statement.

    Within one transaction a session keeps one connection; SQLAlchemy's own way to it walks its
    transaction's state machine on every call (a submission asks five times).
    """
    transaction = session.get_transaction()
    kept = session.info.get(_CONNECTION)
    if kept is not None and transaction is not None and kept[0] is transaction:
        return kept[1]
    connection = session.connection()
    session.info[_CONNECTION] = (session.get_transaction(), connection)
    return connection


class _Compiled:
    """What one statement needs on one kind of database, for one set of parameter names."""

    def __init__(self, statement, dialect, keys):
        compiled = statement.compile(dialect=dialect, column_keys=list(keys) if keys is not None else None)
        if compiled.escaped_bind_names:
            raise ValueError("bound names that need escaping are not supported")
        self.sql = compiled.string
        self.positional = compiled.positional
        self.names = tuple(compiled.positiontup) if compiled.positional else tuple(compiled.bind_names.values())
        processors = compiled._bind_processors
        self.processors = tuple(processors.get(name) for name in self.names)
        self.defaults = {}
        for name, bind in compiled.binds.items():  # anonymous ones under their rendered names too
            if bind.value is not None and not bind.callable:
                self.defaults[name] = bind.value
        self.prefetch = []
        for column in getattr(compiled, "insert_prefetch", ()):
            default = column.default
            if default is None or default.is_sequence or default.is_clause_element:
                raise ValueError(f"the default of {column} is not supported")
            self.prefetch.append((column.key, default))
        columns = compiled._result_columns
        self.row = collections.namedtuple("Row", [entry.keyname for entry in columns], rename=True) if columns \
            else None
        self.results = tuple(entry.type._cached_result_processor(dialect, None) for entry in columns)
        self.converts = any(self.results)

    def values(self, params):
        """The parameters in the driver's form: a tuple (positional) or a dict."""
        merged = dict(self.defaults)
        merged.update(params)
        for key, default in self.prefetch:
            if key not in params:
                merged[key] = default.arg(None) if default.is_callable else default.arg
        values = [merged.get(name) for name in self.names]
        for i, processor in enumerate(self.processors):
            if processor is not None and values[i] is not None:
                values[i] = processor(values[i])
        return tuple(values) if self.positional else dict(zip(self.names, values))

    def rows(self, raw):
        if self.row is None:
            return []
        if self.converts:
            processors = self.results
            raw = [tuple(value if processor is None or value is None else processor(value)
                         for processor, value in zip(processors, row)) for row in raw]
        make = self.row._make
        return [make(row) for row in raw]


def _run(fairy, compiled, values, listeners, connection, dbapi_error, failed):
    """Run ``compiled`` on a cursor of the driver's connection ``fairy``: its raw rows.

    ``before_cursor_execute`` listeners see the statement first (``connection``: the Connection
    they are told of, None off a session); a driver error goes to ``failed(error, cursor)``, which
    raises the caller's form of it.
    """
    cursor = fairy.cursor()
    try:
        for listener in listeners:
            listener(connection, cursor, compiled.sql, values, None, False)
        try:
            cursor.execute(compiled.sql, values)
            return cursor.fetchall() if compiled.row is not None else []
        except dbapi_error as error:
            failed(error, cursor)
            raise  # failed raises; never reached
    finally:
        cursor.close()


class Prepared:
    """A Core statement run past SQLAlchemy's execution machinery (see the module's docstring).

    ``writes``: the statement changes rows (the request then commits). Inserts are compiled per
    set of given columns, as SQLAlchemy does, so that the others take their defaults.
    ``alone``: the read of a request that reads nothing else (a status check): while no session
    was made for the request it runs on a pooled connection of its own, and the session (its
    transaction, its closing) is never made.
    """

    def __init__(self, statement, writes=False, alone=False):
        self.statement = statement
        self.writes = writes
        self.alone = alone and not writes
        self._by_columns = statement.is_insert or statement.is_update
        self._compiled = {}
        self._lock = threading.Lock()

    def _for(self, dialect, params):
        key = (dialect.name, frozenset(params) if self._by_columns else None)
        compiled = self._compiled.get(key)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(key)
                if compiled is None:
                    compiled = self._compiled[key] = _Compiled(self.statement, dialect,
                                                               params.keys() if self._by_columns else None)
        return compiled

    def rows(self, params=None):
        """Every row of the result (named tuples), in the session's transaction."""
        params = params or {}
        if self.alone and has_request_context() and not db.session.registry.has():
            return self._rows_alone(params)
        session = db.session()
        connection = _connection_of(session)
        compiled = self._for(connection.dialect, params)
        values = compiled.values(params)

        def failed(error, cursor):  # raises SQLAlchemy's error; a lost connection is invalidated
            connection._handle_dbapi_exception(error, compiled.sql, values, cursor, None)

        raw = _run(connection.connection, compiled, values, connection.dispatch.before_cursor_execute,
                   connection, connection.dialect.loaded_dbapi.Error, failed)
        if self.writes:
            mark_written(session)
        return compiled.rows(raw)

    def _rows_alone(self, params):
        """A read of a request that reads nothing else: on a pooled connection of its own, no session.

        The request's session is never made, so neither is its transaction (its snapshot, its
        closing); the connection goes back to the pool when the request ends (``transaction.close_session``).
        """
        engine = db.engine
        fairy = g.get(_READER)
        if fairy is None:
            try:
                fairy = engine.raw_connection()
            except engine.dialect.loaded_dbapi.Error as error:  # as a session's connect would raise it
                raise DBAPIError.instance(None, None, error, engine.dialect.loaded_dbapi.Error,
                                          dialect=engine.dialect) from error
            keep_reader(fairy, engine.dialect)
        compiled = self._for(engine.dialect, params)
        values = compiled.values(params)
        dbapi_error = engine.dialect.loaded_dbapi.Error

        def failed(error, cursor):  # raises as a session's connection would; a lost one is given up
            lost = engine.dialect.is_disconnect(error, fairy, cursor)
            if lost:
                g.pop(_READER, None)
                fairy.invalidate(error)
            raise DBAPIError.instance(compiled.sql, values, error, dbapi_error,
                                      connection_invalidated=lost, dialect=engine.dialect) from error

        return compiled.rows(_run(fairy, compiled, values, engine.dispatch.before_cursor_execute, None,
                                  dbapi_error, failed))

    def first(self, params=None):
        rows = self.rows(params)
        return rows[0] if rows else None

    def scalar(self, params=None):
        row = self.first(params)
        return row[0] if row is not None else None
