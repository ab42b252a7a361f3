"""The shipped packaging, checked as far as this machine allows (it has no Docker engine).

The Dockerfile runs gunicorn as an unprivileged user with a health check; the
compose file has web, worker, a one-shot migrate, PostgreSQL, Redis and nginx
from deploy/, secrets as files; the systemd units run web and worker unprivileged.
"""
import re

import yaml

from tests.live import ROOT


def test_the_image_runs_unprivileged_and_copies_what_exists():
    dockerfile = (ROOT / "Dockerfile").read_text()
    user = re.findall(r"^USER (\S+)$", dockerfile, re.M)
    assert user and user[-1] not in ("root", "0")
    assert "HEALTHCHECK" in dockerfile and "/healthz" in dockerfile and "wsgi:app" in dockerfile
    for line in re.findall(r"^COPY (.+) \S+$", dockerfile, re.M):
        for source in line.split():
            assert (ROOT / source).exists(), source


def test_compose_has_every_part_and_takes_secrets_from_files():
    compose = yaml.safe_load((ROOT / "deploy/compose.yaml").read_text())
    services = compose["services"]
    assert {"web", "worker", "migrate", "postgres", "redis", "nginx"} <= set(services)
    assert services["migrate"]["command"][-2:] == ["db", "upgrade"]
    for name in ("web", "worker"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        environment = services[name]["environment"]
        assert environment["GUARDSVC_SECRET_KEY_FILE"].startswith("/run/secrets/")
        assert environment["GUARDSVC_RATELIMIT_STORAGE_URI"].startswith("redis://")  # several workers
    assert services["worker"]["command"][-1] == "worker"
    mounted = services["nginx"]["volumes"][0].split(":")[0]
    assert (ROOT / "deploy" / mounted).resolve() == (ROOT / "deploy/nginx/guardsvc.conf").resolve()
    assert all(placeholder in services["nginx"]["command"][-1] for placeholder in ("@LISTEN@", "@GUARDSVC@", "@APP@", "@SECRET@"))
    assert set(compose["secrets"]) >= {"database_url", "secret_key", "forward_auth_secret"}


def test_systemd_units_run_web_and_worker_unprivileged():
    for name, command in (("guardsvc-web", "gunicorn"), ("guardsvc-worker", "worker")):
        unit = (ROOT / f"deploy/systemd/{name}.service").read_text()
        assert re.search(r"^User=guardsvc$", unit, re.M) and "NoNewPrivileges=true" in unit
        assert re.search(rf"^ExecStart=.*{command}", unit, re.M) and "EnvironmentFile=" in unit
        assert "[Install]" in unit and "WantedBy=multi-user.target" in unit
