"""Settings are checked at start: every problem in one readable message, a non-zero exit, no traceback."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from guardsvc.config import SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith("GUARDSVC_") and name not in ("GUARDSVC_SECRET_KEY", "GUARDSVC_TESTING_CHEAP_PASSWORD_HASHES"):
            monkeypatch.delenv(name)
    return monkeypatch


def problems_of(tmp_path):
    with pytest.raises(SettingsError) as caught:
        load_settings(str(tmp_path))
    return "\n".join(caught.value.problems)


@pytest.mark.parametrize("name, value, says", [
    ("RATELIMIT_SUBMIT", "lots", "not a rate limit"),
    ("RATELIMIT_ENABLED", "maybe", "not a yes/no value"),
    ("PROXY_COUNT", "-1", "below the smallest allowed value"),
    ("PROXY_COUNT", "two", "not a whole number"),
    ("BASE_URL", "ftp://x", "not an http:// or https:// address"),
    ("TIMEZONE", "Mars/Olympus", "unknown time zone"),
    ("DATABASE_STATEMENT_TIMEOUT_SECONDS", "soon", "not a number"),
    ("WEBAUTHN_RP_ID", "https://example.com", "not a host name"),
    ("WEBAUTHN_RP_ID", "example.com", "neither the host of GUARDSVC_BASE_URL"),
])
def test_each_bad_setting_is_named(clean_env, tmp_path, name, value, says):
    clean_env.setenv(f"GUARDSVC_{name}", value)
    found = problems_of(tmp_path)
    assert f"GUARDSVC_{name}" in found and says in found


def test_a_shared_database_needs_a_shared_secret_key(clean_env, tmp_path):
    clean_env.delenv("GUARDSVC_SECRET_KEY")
    clean_env.setenv("GUARDSVC_DATABASE_URL", "postgresql://db.example/guardsvc")
    assert "GUARDSVC_SECRET_KEY" in problems_of(tmp_path)
    clean_env.setenv("GUARDSVC_SECRET_KEY_FILE", str(tmp_path / "key"))
    (tmp_path / "key").write_text("kunci-bersama\n")
    assert load_settings(str(tmp_path))["SECRET_KEY"] == "kunci-bersama"  # a secret from a file


def test_the_proxy_secret_is_the_setting_else_one_generated_once_into_the_instance_folder(clean_env, tmp_path):
    generated = load_settings(str(tmp_path))["FORWARD_AUTH_SECRET"]
    kept = tmp_path / "forward_auth_secret"
    assert len(generated) >= 43 and kept.read_text() == generated and kept.stat().st_mode & 0o777 == 0o600
    assert load_settings(str(tmp_path))["FORWARD_AUTH_SECRET"] == generated  # every worker, every start
    clean_env.setenv("GUARDSVC_FORWARD_AUTH_SECRET", "rahasia-proksi-yang-panjang-0123456789")
    assert load_settings(str(tmp_path))["FORWARD_AUTH_SECRET"] == "rahasia-proksi-yang-panjang-0123456789"


def test_the_passkey_relying_party_is_the_base_url_host_or_a_domain_it_belongs_to(clean_env, tmp_path):
    clean_env.setenv("GUARDSVC_BASE_URL", "https://akun.example.co.id")
    assert load_settings(str(tmp_path))["WEBAUTHN_RP_ID"] is None  # unset: the host (passkeys/ceremony.py)
    clean_env.setenv("GUARDSVC_WEBAUTHN_RP_ID", "Example.co.id")
    assert load_settings(str(tmp_path))["WEBAUTHN_RP_ID"] == "example.co.id"
    clean_env.setenv("GUARDSVC_WEBAUTHN_RP_ID", "ample.co.id")  # a suffix of the text, not a parent domain
    assert "GUARDSVC_WEBAUTHN_RP_ID" in problems_of(tmp_path)


def test_memory_limits_are_refused_with_several_workers(clean_env, tmp_path):
    clean_env.setenv("WEB_CONCURRENCY", "2")
    load_settings(str(tmp_path))  # unset: the machine's shared store, fine for any number of workers
    clean_env.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", "memory://")
    assert "GUARDSVC_RATELIMIT_STORAGE_URI" in problems_of(tmp_path)
    clean_env.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", "redis://127.0.0.1:6379/0")
    load_settings(str(tmp_path))


def test_the_default_limit_store_is_a_file_in_the_instance_folder_and_workers_follow_the_cores(clean_env, tmp_path):
    from guardsvc.config import machine_cores, server_settings

    assert load_settings(str(tmp_path))["RATELIMIT_STORAGE_URI"] == \
        f"guardsvc-lmdb://{tmp_path.resolve()}/ratelimits.lmdb"
    assert server_settings()["workers"] == machine_cores() == len(os.sched_getaffinity(0))
    clean_env.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", "memory://")
    assert server_settings()["workers"] == 1
    clean_env.setenv("GUARDSVC_WORKERS", "3")
    clean_env.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", "redis://127.0.0.1:6379/0")
    assert server_settings()["workers"] == 3


def test_the_command_line_lists_every_problem_and_exits_without_a_traceback(tmp_path):
    env = {**os.environ, "GUARDSVC_RATELIMIT_SUBMIT": "lots", "GUARDSVC_PROXY_COUNT": "-1",
           "GUARDSVC_MAIL_USE_TLS": "kadang", "GUARDSVC_BASE_URL": "ftp://x"}
    run = subprocess.run([sys.executable, "-m", "flask", "--app", "guardsvc", "users", "list"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "Traceback" not in run.stderr + run.stdout
    for name in ("RATELIMIT_SUBMIT", "PROXY_COUNT", "MAIL_USE_TLS", "BASE_URL"):
        assert f"GUARDSVC_{name}" in run.stderr
