"""Secrets at rest: sealed TOTP secrets, keyed recovery-code hashes, key rotation, owner-only files."""
import hashlib
import os
import stat
import subprocess
import sys

import pyotp
import pytest
from flask_migrate import downgrade, upgrade
from sqlalchemy import text

from guardsvc import create_app
from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.config import shared_secret_key
from guardsvc.extensions import db
from guardsvc.web.identity import Client
from guardsvc.storage.sealing import SecretUnreadable
from guardsvc.signin import service
from guardsvc.twofactor.cli import twofactor_cli
from tests.support.factories import PASSWORD
from tests.support.pages_support import sign_in_session
from tests.support.signin_support import enable_2fa, totp_code

CLIENT = Client("198.51.100.20", "laptop-1", None, "pytest")
NEW_KEY = "a-new-secret-key-after-rotation"

# The revision before secrets were sealed (0009_account_secrets).
BEFORE_SEALING = "0008_exact_approvals"


def raw(sql, **params):
    return db.session.execute(text(sql), params).all()


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_totp_secret_and_recovery_codes_are_not_stored_readable(app, ctx, make_user):
    user = make_user()
    secret, codes = enable_2fa(app, user)
    [(stored,)] = raw("SELECT totp_secret FROM users WHERE id = :id", id=user.id)
    assert secret not in stored and stored.startswith("gAAAAA")  # a Fernet token
    hashes = {row[0] for row in raw("SELECT code_hash FROM recovery_codes")}
    for code in codes:
        for form in (code, code.replace("-", "")):
            assert hashlib.sha256(form.encode()).hexdigest() not in hashes
    assert service.sign_in(user.email, PASSWORD, CLIENT, code=codes[0]).result == "recovery_code_used"


def test_rotated_key_keeps_secrets_and_codes_through_fallbacks(app, make_user, monkeypatch, runner):
    user = make_user()
    secret, codes = enable_2fa(app, user)
    old_key = app.config["SECRET_KEY"]
    monkeypatch.setitem(app.config, "SECRET_KEY", NEW_KEY)
    monkeypatch.setitem(app.config, "SECRET_KEY_FALLBACKS", [old_key])
    with app.app_context():
        assert service.sign_in(user.email, PASSWORD, CLIENT, code=totp_code(secret)).signed_in
        assert service.sign_in(user.email, PASSWORD, CLIENT, code=codes[1]).signed_in
        db.session.rollback()
    assert "resealed 1 TOTP secret(s)" in runner.invoke(twofactor_cli, ["reseal"]).output
    # Sealed under the new key now: the old one may go (recovery codes keep theirs until replaced).
    monkeypatch.setitem(app.config, "SECRET_KEY_FALLBACKS", [])
    with app.app_context():
        assert service.sign_in(user.email, PASSWORD, CLIENT, code=totp_code(secret, 1)).signed_in


def test_a_secret_without_its_key_fails_loudly_never_open(app, make_user, monkeypatch):
    user = make_user()
    enable_2fa(app, user)
    monkeypatch.setitem(app.config, "SECRET_KEY", NEW_KEY)
    with app.app_context(), pytest.raises(SecretUnreadable):
        service.sign_in(user.email, PASSWORD, CLIENT)


def test_migration_seals_existing_secrets_and_keeps_existing_codes(app, make_user):
    user = make_user()
    secret = pyotp.random_base32()
    with app.app_context():
        downgrade(revision=BEFORE_SEALING)
        try:
            db.session.execute(text("UPDATE users SET totp_secret = :s, totp_enabled_at = :t WHERE id = :id"),
                               {"s": secret, "t": clock.utcnow(), "id": user.id})
            db.session.execute(text("INSERT INTO recovery_codes (user_id, code_hash, created_at) "
                                    "VALUES (:id, :h, :t)"),
                               {"id": user.id, "h": hashlib.sha256(b"abcde23456").hexdigest(),
                                "t": clock.utcnow()})
            db.session.commit()
            upgrade()
            [(stored,)] = raw("SELECT totp_secret FROM users WHERE id = :id", id=user.id)
            assert stored != secret and stored.startswith("gAAAAA")
            assert service.sign_in(user.email, PASSWORD, CLIENT, code=totp_code(secret)).signed_in
            assert service.sign_in(user.email, PASSWORD, CLIENT, code="abcde-23456").result == \
                "recovery_code_used"
            db.session.commit()
            downgrade(revision=BEFORE_SEALING)
            assert raw("SELECT totp_secret FROM users WHERE id = :id", id=user.id) == [(secret,)]
            assert raw("SELECT count(*) FROM recovery_codes") == [(0,)]
        finally:
            db.session.rollback()
            upgrade()


def test_secret_key_file_is_owner_only(tmp_path):
    key = shared_secret_key(tmp_path)
    assert key and mode_of(tmp_path / "secret_key") == 0o600
    assert shared_secret_key(tmp_path) == key


def test_sqlite_files_are_owner_only(tmp_path):
    path = tmp_path / "guardsvc.db"
    other = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})
    with other.app_context():
        with db.engine.begin() as conn:
            conn.execute(text("CREATE TABLE probe (x INTEGER)"))
            conn.execute(text("INSERT INTO probe VALUES (1)"))
        files = [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]
        assert all(file.exists() for file in files)
        assert [mode_of(file) for file in files] == [0o600] * 3
        db.engine.dispose()


def test_pages_with_the_secret_or_the_codes_are_never_cached(app, client, make_user):
    user = make_user()
    token = sign_in_session(client, user)
    started = client.post("/akun/dua-langkah/mulai", data={"csrf_token": token}, follow_redirects=True)
    with app.app_context():
        secret = db.session.get(User, user.id).totp_secret
    shown = "".join(f'<span class="secret-group">{secret[i:i + 4]}</span>' for i in range(0, len(secret), 4))
    assert started.status_code == 200 and shown in started.get_data(as_text=True)
    assert started.headers["Cache-Control"] == "no-store"
    confirmed = client.post("/akun/dua-langkah/aktifkan", data={"csrf_token": token, "code": totp_code(secret)})
    assert confirmed.status_code == 201 and confirmed.headers["Cache-Control"] == "no-store"


def test_a_second_app_on_a_database_in_use_keeps_its_locks(tmp_path):
    """Creating an app never opens and closes a database file this process already uses: that would drop
    SQLite's POSIX locks, and another process's last close would then delete the -wal file under it."""
    path = tmp_path / "guardsvc.db"
    uri = f"sqlite:///{path}"
    first = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": uri})
    with first.app_context():
        connection = db.engine.connect()
        connection.execute(text("CREATE TABLE probe (x INTEGER)"))
        connection.commit()
        create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": uri})
        # Another process writes and closes: with the locks gone it would be "the last connection"
        # and delete the -wal file this process still reads.
        subprocess.run([sys.executable, "-c", "import sqlite3; c = sqlite3.connect(%r); "
                        "c.execute('INSERT INTO probe VALUES (7)'); c.commit(); c.close()" % str(path)], check=True)
        assert path.with_name(path.name + "-wal").exists()
        assert connection.execute(text("SELECT x FROM probe")).scalars().all() == [7]
        connection.close()
        db.engine.dispose()
