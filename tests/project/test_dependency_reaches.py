"""Where guardsvc leans on a dependency's private internals, a test that fails loudly when it changes.

Nine places do it, each for a measured reason (docs/development.md, "Reaching into a dependency"):

- marshmallow ``Field._CHECK_ATTRIBUTE`` and ``Schema._hooks`` (the plain dump, web/schema_fields.py):
  below, and tests/web/test_schema_dump.py;
- limits' ``MemoryStorage.__schedule_expiry`` and its dictionaries (ratelimits/memory.py):
  tests/storage/test_bounded_waits.py (no Timer thread per count, the sweep in the caller's thread);
- limits' Redis key layout (one round trip for every counter, ratelimits/limits.py): below;
- Flask-Login's ``_update_request_context_with_user`` (the database-outage page, web/errors.py): below;
- Flask-Babel's ``g._flask_babel`` (the current language in one look-up, translation.py): below;
  its ``LazyString._args`` is no longer read (``MessageId.source``);
- SQLAlchemy's compiled form (``_bind_processors``, ``_result_columns``), ``TypeEngine._cached_result_processor``
  and ``Connection._handle_dbapi_exception`` (the prebuilt hot statements, storage/statements.py): below;
- gunicorn's ``Logger._get_user`` (the access line's ``u`` atom, computed alone, web/access_log.py): below,
  and tests/web/test_access_log.py (every atom equals gunicorn's own);
- Flask's ``RequestContext._after_request_functions`` and ``_session`` and ``DefaultJSONProvider._app``
  (hooks run from lists made once, one JSON encoder, web/application.py): tests/web/test_flask_class.py
  (the same hooks, answers and JSON bytes as plain Flask);
- http.client's ``_create_connection`` (a webhook goes to the address that was checked,
  webhooks/sending.py): tests/webhooks/test_webhook_targets_live.py::test_the_request_goes_to_the_address_that_was_checked.
"""
from datetime import datetime
from types import SimpleNamespace

import pytest

from flask_babel import force_locale, get_locale
from flask_login import current_user
from marshmallow import fields, post_dump, pre_dump
from limits.storage import RedisStorage

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, event, select, bindparam
from sqlalchemy.exc import IntegrityError

from guardsvc.accounts.auth import load_user_from_session
from guardsvc.extensions import db, login_manager
from guardsvc.storage.statements import Prepared
from guardsvc.ratelimits.limits import Counters
from guardsvc.translation import LOCALES, _chosen_locale
from guardsvc.web.errors import _treat_visitor_as_anonymous
from guardsvc.web.schema_fields import BaseSchema
from tests.support.faults_support import redis_server  # noqa: F401


def test_fields_that_compute_and_schemas_with_hooks_are_dumped_by_marshmallow():
    """``_CHECK_ATTRIBUTE`` false (Method, Function) and ``_hooks`` (pre/post dump) keep the plain dump away."""
    class Computed(BaseSchema):
        name = fields.String()
        shout = fields.Method("loud")

        def loud(self, obj):
            return obj.name.upper()

    class Hooked(BaseSchema):
        name = fields.String()

        @pre_dump
        def trim(self, obj, **kwargs):
            return SimpleNamespace(name=obj.name.strip())

    class Finished(BaseSchema):
        name = fields.String()

        @post_dump
        def mark(self, data, **kwargs):
            return {**data, "done": True}

    plain = BaseSchema.from_dict({"name": fields.String()})()
    assert plain._plain_plan() is not None
    ani = SimpleNamespace(name=" ani ")
    for schema, expected in ((Computed(), {"name": " ani ", "shout": " ANI "}), (Hooked(), {"name": "ani"}),
                             (Finished(), {"name": " ani ", "done": True})):
        assert schema._plain_plan() is None, type(schema).__name__
        assert schema.dump(ani) == expected


def test_counts_made_in_one_round_trip_are_the_counters_limits_reads(redis_server):  # noqa: F811
    counters = Counters({"RATELIMIT_ENABLED": True, "RATELIMIT_KEY_PREFIX": "reach",
                         "RATELIMIT_STORAGE_URI": redis_server.url, "RATELIMIT_STORAGE_OPTIONS": {}})
    store = counters.primary
    assert type(store) is RedisStorage  # noqa: E721 - the path of the one-round-trip script
    assert [count for count, _ in counters.count(store, [("reach/a", 60), ("reach/b", 3600)])] == [1, 1]
    [(count, reset_at)] = counters.count(store, [("reach/a", 60)])
    assert count == 2 and store.get("reach/a") == 2 and store.get("reach/b") == 1
    assert abs(store.get_expiry("reach/a") - reset_at) <= 1
    assert store.incr("reach/a", 60) == 3  # limits' own counting goes on from the script's


def test_the_outage_page_takes_the_visitor_as_anonymous_without_loading_the_account(app):
    loaded = []
    login_manager.user_loader(lambda key: loaded.append(key))
    try:
        with app.test_request_context("/"):
            from flask import session

            session["_user_id"] = "a-session-key"
            _treat_visitor_as_anonymous()
            assert not current_user.is_authenticated
            assert session["_user_id"] == "a-session-key"  # still signed in: nothing written
    finally:
        login_manager.user_loader(load_user_from_session)
    assert loaded == []


def test_the_quick_look_finds_the_language_flask_babel_chose(app):
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert get_locale() is LOCALES["en"]
        assert _chosen_locale() is LOCALES["en"]
        with force_locale(LOCALES["id"]):
            assert _chosen_locale() == get_locale() == LOCALES["id"]


def test_prebuilt_statements_convert_values_as_sqlalchemy_does_and_raise_its_errors(app):
    """The compiled form's bind and result processors, and SQLAlchemy's own error wrapping, as statements.py uses them."""
    probes = Table("reach_probe", MetaData(), Column("id", Integer, primary_key=True),
                   Column("name", String(20), unique=True, nullable=False),
                   Column("made_at", DateTime, nullable=False, default=lambda: datetime(2027, 1, 15, 8, 0, 0, 123456)))
    insert = Prepared(probes.insert(), writes=True)
    read = Prepared(select(probes.c.name, probes.c.made_at).where(probes.c.name == bindparam("name")))
    seen = []
    with app.app_context():
        probes.create(db.engine)
        listen = lambda _conn, _cursor, sql, *_rest: seen.append(sql.split()[0])  # noqa: E731
        event.listen(db.engine, "before_cursor_execute", listen)
        try:
            insert.rows({"name": "ani"})
            row = read.first({"name": "ani"})
            assert row.name == "ani" and row.made_at == datetime(2027, 1, 15, 8, 0, 0, 123456)  # a datetime, on SQLite too
            with pytest.raises(IntegrityError):  # SQLAlchemy's error, not the driver's
                insert.rows({"name": "ani"})
            db.session.rollback()
            assert seen[:2] == ["INSERT", "SELECT"]
        finally:
            event.remove(db.engine, "before_cursor_execute", listen)
            db.session.remove()
            probes.drop(db.engine)


def test_the_user_atom_is_read_as_gunicorn_reads_it():
    """gunicorn's ``Logger._get_user``: the user of a Basic Authorization header, None for any other."""
    import base64

    from gunicorn.config import Config
    from gunicorn.glogging import Logger

    logger = Logger(Config())
    basic = "Basic " + base64.b64encode(b"rina:rahasia").decode()
    assert logger._get_user({"HTTP_AUTHORIZATION": basic}) == "rina"
    assert logger._get_user({"HTTP_AUTHORIZATION": "Bearer gsv_x"}) is None
    assert logger._get_user({}) is None
