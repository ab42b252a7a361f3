import logging
from logging.config import fileConfig

from flask import current_app

from alembic import context

from guardsvc.storage.revisions import newer_release_migrated, record_declaration

# this is the Alembic Config object, which provides
# access to the values within the .ini file in use.
config = context.config

# Interpret the config file for Python logging.
# This line sets up loggers basically.
# Keep the application's loggers alive when migrations run inside it.
fileConfig(config.config_file_name, disable_existing_loggers=False)
logger = logging.getLogger('alembic.env')


def get_engine():
    return current_app.extensions['migrate'].db.engine


def get_engine_url():
    try:
        return get_engine().url.render_as_string(hide_password=False).replace(
            '%', '%%')
    except AttributeError:
        return str(get_engine().url).replace('%', '%%')


# add your model's MetaData object here
# for 'autogenerate' support
# from myapp import mymodel
# target_metadata = mymodel.Base.metadata
config.set_main_option('sqlalchemy.url', get_engine_url())
target_db = current_app.extensions['migrate'].db

# other values from the config, defined by the needs of env.py,
# can be acquired:
# my_important_option = config.get_main_option("my_important_option")
# ... etc.


def get_metadata():
    if hasattr(target_db, 'metadatas'):
        return target_db.metadatas[None]
    return target_db.metadata


def run_migrations_offline():
    """Run migrations in 'offline' mode.

    This configures the context with just a URL
    and not an Engine, though an Engine is acceptable
    here as well.  By skipping the Engine creation
    we don't even need a DBAPI to be available.

    Calls to context.execute() here emit the given string to the
    script output.

    """
    url = config.get_main_option("sqlalchemy.url")
    context.configure(
        url=url, target_metadata=get_metadata(), literal_binds=True,
        # A migration that breaks older code says so; the database keeps it (guardsvc.storage.revisions).
        on_version_apply=record_declaration,
    )
    if context.get_context().dialect.name == "postgresql":
        context.execute(lock_timeout_statement())  # the script sets it as the online run does

    with context.begin_transaction():
        context.run_migrations()


def lock_timeout_statement():
    """A migration that waits for a lock (a long transaction on the table) gives up after this
    instead of queueing every later read and write of the table behind its own request."""
    return f"SET lock_timeout = '{int(current_app.config['MIGRATION_LOCK_TIMEOUT_SECONDS'] * 1000)}ms'"


def run_migrations_online():
    """Run migrations in 'online' mode.

    In this scenario we need to create an Engine
    and associate a connection with the context.

    """

    # this callback is used to prevent an auto-migration from being generated
    # when there are no changes to the schema
    # reference: http://alembic.zzzcomputing.com/en/latest/cookbook.html
    def process_revision_directives(context, revision, directives):
        if getattr(config.cmd_opts, 'autogenerate', False):
            script = directives[0]
            if script.upgrade_ops.is_empty():
                directives[:] = []
                logger.info('No changes in schema detected.')

    conf_args = current_app.extensions['migrate'].configure_args
    if conf_args.get("process_revision_directives") is None:
        conf_args["process_revision_directives"] = process_revision_directives

    connectable = get_engine()

    with connectable.connect() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(lock_timeout_statement())
            connection.commit()  # the session keeps the setting; the migrations begin their own transaction
        context.configure(
            connection=connection,
            target_metadata=get_metadata(),
            # A migration that breaks older code says so; the database keeps it (guardsvc.storage.revisions).
            on_version_apply=record_declaration,
            **conf_args
        )

        try:
            if _migrated_by_a_newer_release(connection):
                return
            with context.begin_transaction():
                context.run_migrations()
        finally:
            if connection.dialect.name == "postgresql":
                _reset_timeouts(connection)


def _migrated_by_a_newer_release(connection):
    """A newer release's migrations ran (a revision this code does not know): nothing to do when its schema
    still serves this code (a node of the previous release restarting mid-upgrade runs `db upgrade`
    first, as the shipped unit does); refused, naming why, when a migration declared it does not."""
    stored = context.get_context().get_current_heads()
    known = {script.revision for script in context.script.walk_revisions()}
    problem = newer_release_migrated(connection, stored, known)
    if problem is None:
        return False
    if problem:
        raise RuntimeError(problem)
    logger.info("the database is at %s, a newer release's revision, and its schema serves this code: "
                "nothing to upgrade", ", ".join(stored))
    return True


def _reset_timeouts(connection):
    """The engine may be the application's own (tests, an upgrade at start): its pooled
    connection goes back with the timeouts it had."""
    try:
        connection.rollback()
        connection.exec_driver_sql("RESET lock_timeout")
        connection.exec_driver_sql("RESET statement_timeout")
        connection.commit()
    except Exception:  # noqa: BLE001 - a broken connection is discarded by the pool anyway
        logger.warning("could not reset the migration's timeouts on its connection", exc_info=True)


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
