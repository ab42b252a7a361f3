"""Accounts, passwords and personal access tokens (API and CLI)."""
import hashlib

from guardsvc.accounts.models import ApiToken, User
from guardsvc.extensions import db
from tests.support.factories import PASSWORD


def test_password_is_stored_as_argon2id(make_user, app):
    user = make_user()
    with app.app_context():
        stored = db.session.get(User, user.id).password_hash
    assert stored.startswith("$argon2id$")
    assert PASSWORD not in stored


def test_token_exchange_returns_token_once_and_stores_only_hash(client, make_user, app):
    user = make_user(email="Rina@Example.com")
    response = client.post("/api/auth/tokens", json={"email": " rina@example.COM ", "password": PASSWORD,
                                                     "name": "skrip"})
    assert response.status_code == 201
    body = response.get_json()
    token = body["token"]
    assert token.startswith("gsv_") and len(token) > 40
    assert set(body["data"]) == {"id", "name", "prefix", "created_at", "last_used_at", "revoked_at"}
    assert body["data"]["name"] == "skrip"
    with app.app_context():
        record = db.session.get(ApiToken, body["data"]["id"])
        assert record.user_id == user.id
        assert record.token_hash == hashlib.sha256(token.encode()).hexdigest()
        assert token not in {record.token_hash, record.prefix}
    listed = client.get("/api/auth/tokens", headers={"Authorization": f"Bearer {token}"})
    assert token not in listed.get_data(as_text=True)
    assert listed.get_json()["data"][0]["last_used_at"] is not None


def test_wrong_password_and_unknown_email_look_the_same(client, make_user):
    make_user(email="ada@example.com")
    wrong = client.post("/api/auth/tokens", json={"email": "ada@example.com", "password": "salah"})
    unknown = client.post("/api/auth/tokens", json={"email": "tidak-ada@example.com", "password": "salah"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.get_json() == unknown.get_json()


def test_token_request_validation(client):
    response = client.post("/api/auth/tokens", json={"email": "bukan", "password": 5})
    assert response.status_code == 422
    assert set(response.get_json()["errors"]) == {"email", "password"}


def test_revoking_someone_elses_token_is_404(client, bearer):
    _, mine = bearer()
    _, theirs = bearer()
    their_id = client.get("/api/auth/tokens", headers=theirs).get_json()["data"][0]["id"]
    assert client.delete(f"/api/auth/tokens/{their_id}", headers=mine).status_code == 404
    assert client.delete("/api/auth/tokens/99999999999", headers=mine).status_code == 404
    assert client.get("/api/auth/tokens", headers=theirs).status_code == 200


def test_inactive_user_token_stops_working(client, bearer, app):
    user, headers = bearer()
    with app.app_context():
        db.session.get(User, user.id).is_active = False
        db.session.commit()
    assert client.get("/api/auth/tokens", headers=headers).status_code == 401


def test_cli_creates_users_and_prints_token_last(runner, app, client):
    result = runner.invoke(args=["users", "create", "Admin@Example.com", "--name", "Admin",
                                 "--password", "rahasia-sekali", "--role", "admin"])
    assert result.exit_code == 0, result.output
    duplicate = runner.invoke(args=["users", "create", "admin@example.com", "--name", "X", "--password", "y"])
    assert duplicate.exit_code != 0
    result = runner.invoke(args=["tokens", "create", "admin@example.com", "--name", "ci"])
    assert result.exit_code == 0, result.output
    token = result.output.strip().splitlines()[-1]
    assert client.get("/api/auth/tokens", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    missing = runner.invoke(args=["tokens", "create", "nobody@example.com"])
    assert missing.exit_code != 0


def test_cli_rejects_unknown_role(runner):
    result = runner.invoke(args=["users", "create", "a@example.com", "--name", "A", "--password", "p",
                                 "--role", "root"])
    assert result.exit_code != 0
