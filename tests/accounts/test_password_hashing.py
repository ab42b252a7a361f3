"""Password hashing costs: memory-hard in production, cheap only through a setting named for tests."""
import logging

import pytest
from argon2 import extract_parameters
from argon2.profiles import RFC_9106_LOW_MEMORY

from guardsvc.accounts import passwords
from guardsvc.accounts.models import User
from guardsvc.config import load_settings
from guardsvc.extensions import db
from tests.support.factories import PASSWORD

SETTING = "GUARDSVC_TESTING_CHEAP_PASSWORD_HASHES"


def stored_parameters(app, user):
    with app.app_context():
        return extract_parameters(db.session.get(User, user.id).password_hash)


@pytest.mark.production_password_hashing
def test_production_costs_are_the_memory_hard_defaults(app, make_user):
    parameters = stored_parameters(app, make_user())
    assert parameters == RFC_9106_LOW_MEMORY  # Argon2id, 64 MiB, 3 passes, 4 lanes
    outside_any_app = passwords.hash_password(PASSWORD)
    assert extract_parameters(outside_any_app) == RFC_9106_LOW_MEMORY


def test_the_suite_hashes_cheaply_unless_a_test_asks(app, make_user):
    parameters = stored_parameters(app, make_user())
    assert (parameters.type, parameters.memory_cost, parameters.time_cost) == (RFC_9106_LOW_MEMORY.type, 8, 1)


def test_without_the_test_setting_an_app_hashes_at_production_cost(monkeypatch, tmp_path):
    from guardsvc import create_app

    for value in (None, "", "false", "0"):
        if value is None:
            monkeypatch.delenv(SETTING)
        else:
            monkeypatch.setenv(SETTING, value)
        assert load_settings(str(tmp_path))["TESTING_CHEAP_PASSWORD_HASHES"] is False
    production = create_app({"TESTING": True})
    with production.app_context():
        assert extract_parameters(passwords.hash_password(PASSWORD)) == RFC_9106_LOW_MEMORY


def test_the_test_setting_is_logged_as_a_warning(monkeypatch, tmp_path, caplog):
    monkeypatch.setenv(SETTING, "true")
    with caplog.at_level(logging.WARNING, logger="guardsvc.config"):
        assert load_settings(str(tmp_path))["TESTING_CHEAP_PASSWORD_HASHES"] is True
    [record] = [r for r in caplog.records if SETTING in r.getMessage()]
    assert record.levelno == logging.WARNING and "test" in record.getMessage()


@pytest.mark.production_password_hashing
def test_a_cheap_hash_is_upgraded_at_the_next_sign_in(app, client, make_user, monkeypatch):
    monkeypatch.setitem(app.config, "TESTING_CHEAP_PASSWORD_HASHES", True)
    user = make_user()
    monkeypatch.setitem(app.config, "TESTING_CHEAP_PASSWORD_HASHES", False)
    assert stored_parameters(app, user).memory_cost == 8
    response = client.post("/api/auth/tokens", json={"email": user.email, "password": PASSWORD})
    assert response.status_code == 201
    assert stored_parameters(app, user) == RFC_9106_LOW_MEMORY
