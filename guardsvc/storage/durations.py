"""Seconds between two stored times, in SQL, on SQLite and PostgreSQL alike.

Times are naive UTC (``clock``): SQLite keeps them as text, which ``julianday``
reads; PostgreSQL subtracts timestamps into an interval and reads its seconds.
"""
from sqlalchemy import Float
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement


class seconds_between(FunctionElement):  # noqa: N801 (reads as a SQL function)
    """``seconds_between(start, end)``: ``end - start`` in seconds (a float; NULL when either is NULL)."""

    type = Float()
    inherit_cache = True
    name = "seconds_between"


@compiles(seconds_between)
def _default(element, compiler, **kw):
    start, end = (compiler.process(argument, **kw) for argument in element.clauses)
    return f"EXTRACT(EPOCH FROM ({end} - {start}))"


@compiles(seconds_between, "sqlite")
def _sqlite(element, compiler, **kw):
    start, end = (compiler.process(argument, **kw) for argument in element.clauses)
    return f"((julianday({end}) - julianday({start})) * 86400.0)"
