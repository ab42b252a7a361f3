"""Which schema this code serves: its own revisions, and what the migrations ahead of it declared.

Upgrades run while the previous release serves (contract section 17). A migration is compatible
with the code of earlier revisions unless it says otherwise: it only adds (tables, nullable columns
or columns with a default, indexes built concurrently), and code that does not know the new table
or column never reads it. A migration that removes or renames what earlier code reads declares it
in its module::

    breaks_code_before = "0040_stop_reading_x"

"code whose migrations end before revision 0040_stop_reading_x reads what this migration removes".
``migrations/env.py`` records the declaration in ``schema_requirements`` when the migration runs (and
deletes it when the migration is undone), so a node of older code, which cannot read the newer
migration files, still learns from the database whether the schema ahead of it serves it: it does
unless a recorded declaration names a revision its code does not know.
"""
import psycopg
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError

from guardsvc.extensions import db
from guardsvc.storage.revision_models import SchemaRequirement

DECLARATION = "breaks_code_before"  # the attribute a migration module declares it with
# What schema_state answers (guardsvc.storage.database): the first two serve this code.
CURRENT, AHEAD, BEHIND, INCOMPATIBLE, MISSING = "current", "ahead", "behind", "incompatible", "missing"
SERVING = frozenset({CURRENT, AHEAD})
_REVISIONS = "guardsvc.code_revisions"  # app.extensions: (heads, every revision) of the code's migrations

__all__ = ["SchemaRequirement", "code_revisions", "compare", "declared_incompatible", "no_such_table"]


def code_revisions(app):
    """``(heads, known)``: the revisions this code's migrations end in, and all of them (read once)."""
    found = app.extensions.get(_REVISIONS)
    if found is None:
        from alembic.config import Config
        from alembic.script import ScriptDirectory

        config = Config()
        config.set_main_option("script_location", app.extensions["migrate"].directory)
        script = ScriptDirectory.from_config(config)
        found = app.extensions[_REVISIONS] = (frozenset(script.get_heads()),
                                              frozenset(rev.revision for rev in script.walk_revisions()))
    return found


def compare(app, stored):
    """What the database's revisions ``stored`` mean for this code (one of the states above).

    Every stored revision is known here but they are not the heads: a migration is still to run
    (behind). A revision unknown here was made by newer code: the schema is ahead, and serves this
    code unless a migration that ran declared that it breaks code this old.
    """
    heads, known = code_revisions(app)
    if stored == heads:
        return CURRENT
    if stored <= known:
        return BEHIND
    return INCOMPATIBLE if declared_incompatible(known) else AHEAD


def declared_incompatible(known):
    """True when a migration that ran declared a revision this code does not know as the oldest it serves."""
    try:
        needed = set(db.session.scalars(select(SchemaRequirement.breaks_code_before)))
    except DBAPIError as error:
        db.session.rollback()
        if not no_such_table(error):
            raise
        return False  # no such table: nothing was ever declared
    return bool(needed - known)


def newer_release_migrated(connection, stored, known):
    """For ``flask db upgrade`` of this code on a database whose revisions ``stored`` it may not know.

    None when this code knows them all (its migrations can run). Otherwise a newer release migrated
    the database: ``""`` when the schema still serves this code (nothing to upgrade: a node of the
    previous release restarted during a rolling upgrade runs this first), or why it does not.
    """
    unknown = set(stored) - set(known)
    if not unknown:
        return None
    try:
        needed = {row[0] for row in connection.execute(select(SchemaRequirement.breaks_code_before))}
    except DBAPIError:
        connection.rollback()
        needed = set()
    breaking = sorted(needed - set(known))
    if breaking:
        return (f"the database was migrated by a newer release ({', '.join(sorted(unknown))}) whose migrations "
                f"no longer serve this code (code before {', '.join(breaking)}): run that release instead")
    return ""


def record_declaration(*, ctx, step, heads, run_args):
    """``on_version_apply`` of migrations/env.py: keep what a migration that ran declared, forget it when undone."""
    if step.is_stamp:
        return
    module = step.up_revision.module
    needs = getattr(module, DECLARATION, None)
    if not needs:
        return
    table = SchemaRequirement.__table__
    if step.is_upgrade:
        statement = table.insert().values(revision=step.up_revision_id, breaks_code_before=needs)
    else:
        statement = table.delete().where(table.c.revision == step.up_revision_id)
    ctx.execute(statement)


def no_such_table(error):
    """The statement failed because its table does not exist (PostgreSQL's 42P01, SQLite's own words)."""
    return isinstance(error.orig, psycopg.errors.UndefinedTable) or "no such table" in str(error.orig)
