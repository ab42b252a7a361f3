"""Account care on the command line: every command, its JSON, its audit entry and its clean errors."""
import json

import pytest
from sqlalchemy import select

from guardsvc.accounts import passwords
from guardsvc.accounts.models import ApiToken, User
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from tests.support.pages_support import sign_in_session
from tests.support.signin_support import enable_2fa, rate_limits_off, request_token  # noqa: F401

NEW = "kuda-laut-biru-2026"


def run(runner, *args, **kwargs):
    return runner.invoke(args=list(args), **kwargs)


def ok(runner, *args, **kwargs):
    result = run(runner, *args, **kwargs)
    assert result.exit_code == 0, result.output
    return result.output


def fails(runner, *args, **kwargs):
    result = run(runner, *args, **kwargs)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.output.startswith("Error: ")
    assert len(result.output.strip().splitlines()) == 1
    return result.output


def audit_rows(app, action):
    with app.app_context():
        return [(e.action, e.target, json.loads(e.details or "{}"), e.actor_label)
                for e in db.session.scalars(select(AuditEvent).where(AuditEvent.action == action))]


def account(app, user):
    with app.app_context():
        record = db.session.get(User, user.id)
        db.session.expunge(record)
        return record


def test_create_validates_the_address_and_is_audited(app, runner):
    error = fails(runner, "users", "create", "bukan-alamat", "--name", "X", "--password", NEW)
    assert "email" in error
    out = ok(runner, "users", "create", "Sari@Example.com", "--name", "Sari", "--password", NEW)
    assert out.startswith("created user sari@example.com (id ")
    [(_, target, details, actor)] = audit_rows(app, "user.created")
    assert target.startswith("user-") and details == {"email": "sari@example.com", "role": "user"}
    assert actor == "cli"
    fails(runner, "users", "create", "sari@example.com", "--name", "Sari", "--password", NEW)


def test_list_plain_with_a_header_and_json(runner, make_user, app):
    admin = make_user(role="admin", email="admin@example.com", name="Admin Satu")
    make_user(email="biasa@example.com")
    enable_2fa(app, admin)
    lines = ok(runner, "users", "list").splitlines()
    assert lines[0].split("\t") == ["id", "email", "role", "active", "2fa", "created_at", "name"]
    assert lines[1].split("\t")[1:5] == ["admin@example.com", "admin", "yes", "on"]
    assert lines[1].split("\t")[6] == "Admin Satu"
    data = json.loads(ok(runner, "users", "list", "--json"))
    assert [(u["email"], u["role"], u["active"], u["two_factor"]) for u in data] == [
        ("admin@example.com", "admin", True, True), ("biasa@example.com", "user", True, False)]
    assert data[0]["created_at"].endswith("Z") and "password_hash" not in data[0]


def test_list_when_there_is_no_account(runner):
    assert ok(runner, "users", "list").splitlines() == ["id\temail\trole\tactive\t2fa\tcreated_at\tname"]
    assert json.loads(ok(runner, "users", "list", "--json")) == []


def test_show(runner, make_user, make_token):
    user = make_user(email="lihat@example.com", name="Lihat")
    make_token(user)
    out = ok(runner, "users", "show", "LIHAT@example.com")
    assert f"id: {user.id}" in out and "email: lihat@example.com" in out and "tokens: 1" in out
    assert "2fa: off" in out and "active: yes" in out
    assert fails(runner, "users", "show", "tidak-ada@example.com") == \
        "Error: no account with e-mail tidak-ada@example.com\n"


def test_set_password_with_the_option_and_by_prompt(app, runner, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in_session(browser, user)
    ok(runner, "users", "set-password", user.email, "--password", NEW)
    assert passwords.verify_password(account(app, user).password_hash, NEW)
    assert browser.get("/akun").status_code == 302  # every session ended
    other = "kereta-malam-ke-solo"
    out = ok(runner, "users", "set-password", user.email, input=f"{other}\n{other}\n")
    assert other not in out  # the prompt hides what is typed
    assert passwords.verify_password(account(app, user).password_hash, other)
    [first, second] = audit_rows(app, "user.password_set")
    assert first[1] == f"user-{user.id}" and first[2] == {"email": user.email}


def test_set_password_follows_the_rule_and_a_mismatch_is_asked_again(app, runner, make_user):
    user = make_user()
    assert "password" in fails(runner, "users", "set-password", user.email, "--password", "qwertyuiop")
    result = run(runner, "users", "set-password", user.email, input=f"{NEW}\nlain-sekali-panjang\n{NEW}\n{NEW}\n")
    assert result.exit_code == 0, result.output
    assert passwords.verify_password(account(app, user).password_hash, NEW)
    fails(runner, "users", "set-password", "tidak-ada@example.com", "--password", NEW)


def test_set_role(app, runner, make_user):
    user = make_user()
    assert ok(runner, "users", "set-role", user.email, "admin") == f"{user.email} is now admin\n"
    assert account(app, user).role == "admin"
    ok(runner, "users", "set-role", user.email, "admin")  # no change, no entry
    assert [row[2] for row in audit_rows(app, "user.role_set")] == [
        {"email": user.email, "old": "user", "new": "admin"}]
    assert run(runner, "users", "set-role", user.email, "root").exit_code == 2


@pytest.mark.usefixtures("rate_limits_off")
def test_disable_ends_sign_in_sessions_and_tokens_then_enable(app, client, runner, make_user, make_token):
    user = make_user()
    token = make_token(user)
    browser = app.test_client()
    sign_in_session(browser, user)
    assert browser.get("/akun").status_code == 200
    ok(runner, "users", "disable", user.email)
    assert browser.get("/akun").status_code == 302
    assert client.get("/api/auth/tokens", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert request_token(client, user.email).status_code == 401
    with app.app_context():
        assert all(t.revoked_at is not None for t in db.session.scalars(select(ApiToken)))
    [(_, target, details, _)] = audit_rows(app, "user.disabled")
    assert target == f"user-{user.id}" and details == {"email": user.email, "tokens_revoked": 1}

    ok(runner, "users", "enable", user.email)
    assert request_token(client, user.email).status_code == 201
    assert client.get("/api/auth/tokens", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert len(audit_rows(app, "user.enabled")) == 1


def test_reset_2fa(app, runner, make_user):
    user = make_user()
    fails(runner, "users", "reset-2fa", user.email)  # nothing to reset
    enable_2fa(app, user)
    ok(runner, "users", "reset-2fa", user.email)
    assert not account(app, user).has_2fa
    assert [row[1] for row in audit_rows(app, "user.2fa_reset")] == [f"user-{user.id}"]


def test_tokens_list_and_revoke(app, runner, make_user, make_token):
    user = make_user()
    make_token(user, name="pertama")
    make_token(user, name="kedua")
    lines = ok(runner, "tokens", "list", user.email).splitlines()
    assert lines[0].split("\t") == ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
    assert [line.split("\t")[1] for line in lines[1:]] == ["kedua", "pertama"]
    data = json.loads(ok(runner, "tokens", "list", user.email, "--json"))
    assert [t["name"] for t in data] == ["kedua", "pertama"] and data[0]["revoked_at"] is None
    assert all(t["prefix"].startswith("gsv_") for t in data) and "token_hash" not in data[0]

    out = ok(runner, "tokens", "revoke", str(data[1]["id"]))
    assert out == f"revoked token {data[1]['id']} ('pertama') of {user.email}\n"
    again = json.loads(ok(runner, "tokens", "list", user.email, "--json"))
    assert again[1]["revoked_at"] is not None and again[0]["revoked_at"] is None
    [(_, target, details, _)] = audit_rows(app, "token.revoked")
    assert target == f"user-{user.id}"
    assert details == {"email": user.email, "token_id": data[1]["id"], "token_name": "pertama"}
    ok(runner, "tokens", "revoke", str(data[1]["id"]))  # already revoked: no second entry
    assert len(audit_rows(app, "token.revoked")) == 1
    assert fails(runner, "tokens", "revoke", "999999") == "Error: no token with id 999999\n"
    fails(runner, "tokens", "list", "tidak-ada@example.com")
