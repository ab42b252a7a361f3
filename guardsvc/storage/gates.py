"""A gate row: one row that the writers of one rule update first, so that they pass one at a time.

On PostgreSQL the UPDATE takes the row's lock until the transaction ends; on
SQLite it takes the database's write lock. Whatever the transaction reads after
the gate includes everything the writers before it committed, so a rule that
reads, decides and writes (a cap, a cooldown) cannot be passed by two writers
at once, across processes and machines.
"""
from sqlalchemy import update

from guardsvc.extensions import db
from guardsvc.storage.inserts import insert_unless_conflict


def pass_gate(model, now, on_first_pass=None):
    """Take ``model``'s gate row (id 1; created on first use): the rest of this transaction runs alone.

    ``on_first_pass()`` runs when this transaction created the row (holding it), to set up what the
    gate guards; a writer that finds the row missing meanwhile waits for that transaction. Returns True
    when this transaction created the row.
    """
    table = model.__table__  # a plain table statement: no ORM bookkeeping on a row every writer updates
    statement = update(table).where(table.c.id == 1).values(passed_at=now)
    if db.session.execute(statement).rowcount:
        return False
    if insert_unless_conflict(model, {"id": 1, "passed_at": now}) is not None:
        if on_first_pass is not None:
            on_first_pass()
        return True
    db.session.execute(statement)  # another transaction created it first: wait for it, then pass
    return False
