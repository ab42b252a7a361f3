"""Where guardsvc leans on a dependency's private internals, a test that fails loudly when it changes.

Seven places do it, each for a measured reason (docs/development.md, "Reaching into a dependency"):

- marshmallow ``Field._CHECK_ATTRIBUTE`` and ``Schema._hooks`` (the plain dump, web/schema_fields.py):
  below, and tests/web/test_schema_dump.py;
- limits' ``MemoryStorage.__schedule_expiry`` and its dictionaries (ratelimits/memory.py):
  tests/storage/test_bounded_waits.py (no Timer thread per count, the sweep in the caller's thread);
- limits' Redis key layout (one round trip for every counter, ratelimits/limits.py): below;
- Flask-Login's ``_update_request_context_with_user`` (the database-outage page, web/errors.py): below;
- Flask-Babel's ``g._flask_babel`` (the current language in one look-up, translation.py): below;
  its ``LazyString._args`` is no longer read (``MessageId.source``);
- gunicorn's ``Logger._get_user`` (the access line's ``u`` atom, computed alone, web/access_log.py): below,
  and tests/web/test_access_log.py (every atom equals gunicorn's own);
- http.client's ``_create_connection`` (a webhook goes to the address that was checked,
  webhooks/sending.py): tests/webhooks/test_webhook_targets_live.py::test_the_request_goes_to_the_address_that_was_checked.
"""
from types import SimpleNamespace

from flask_babel import force_locale, get_locale
from flask_login import current_user
from marshmallow import fields, post_dump, pre_dump
from limits.storage import RedisStorage

from guardsvc.accounts.auth import load_user_from_session
from guardsvc.extensions import login_manager
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
