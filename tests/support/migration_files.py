"""Migration files that tests write into a copy of the migrations folder: the next release's, as they would be."""
import textwrap

HEADER = '''"""{title}

Revision ID: {revision}
Revises: {down}
"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401
{imports}
revision = {revision!r}
down_revision = {down!r}
branch_labels = None
depends_on = None
{declaration}

def upgrade():
{upgrade}


def downgrade():
{downgrade}
'''


def migration_source(title, revision, down, upgrade="pass", downgrade="pass", *, imports="",
                     breaks_code_before=None):
    """The text of a revision file; ``breaks_code_before`` declares the oldest code it still serves."""
    declaration = (f"# Code whose migrations end before this revision reads what it removes.\n"
                   f"breaks_code_before = {breaks_code_before!r}\n" if breaks_code_before else "")
    return HEADER.format(title=title, revision=revision, down=down, imports=imports, declaration=declaration,
                         upgrade=textwrap.indent(textwrap.dedent(upgrade).strip(), "    "),
                         downgrade=textwrap.indent(textwrap.dedent(downgrade).strip(), "    "))


def _script():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from guardsvc import packaged

    config = Config()
    config.set_main_option("script_location", str(packaged.folder("migrations")))
    return ScriptDirectory.from_config(config)


def head_revision():
    """The revision this checkout's migrations end in."""
    return _script().get_current_head()


def revision_before(revision):
    """The revision ``revision`` comes after in this checkout's migrations (its ``down_revision``): what a test
    of one migration's upgrade starts from, wherever later merges put it in the chain."""
    return _script().get_revision(revision).down_revision
