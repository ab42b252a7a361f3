"""The shipped packaging, checked as far as this machine allows (it has no Docker engine).

The Dockerfile runs gunicorn as an unprivileged user with a health check; the
compose file has web, worker, a one-shot migrate, PostgreSQL, Redis and nginx
from deploy/, secrets as files; the systemd units run web and worker unprivileged.
"""
import re
import subprocess

import yaml

from tests.support.live import ROOT


def test_the_image_runs_unprivileged_and_copies_what_exists():
    dockerfile = (ROOT / "Dockerfile").read_text()
    user = re.findall(r"^USER (\S+)$", dockerfile, re.M)
    assert user and user[-1] not in ("root", "0")
    assert "HEALTHCHECK" in dockerfile and "/healthz" in dockerfile
    # A regular install: the build compiles the catalogues and copies templates, static files and
    # migrations into the package (tests/deploy/test_installed_wheel.py runs such a build).
    assert re.search(r"^RUN pip install \. ", dockerfile, re.M)
    for line in re.findall(r"^COPY (.+) \S+$", dockerfile, re.M):
        for source in line.split():
            assert (ROOT / source).exists(), source
    assert "gunicorn.conf.py" in re.findall(r"^COPY (.+) \S+$", dockerfile, re.M)[0].split()


def _start_lines():
    """Every line that starts the web server in what the project ships."""
    compose = yaml.safe_load((ROOT / "deploy/compose.yaml").read_text())
    return {
        "Dockerfile": re.findall(r"^CMD (.+)$", (ROOT / "Dockerfile").read_text(), re.M)[-1],
        "scripts/run": [line for line in (ROOT / "scripts/run").read_text().splitlines()
                        if "bin/gunicorn" in line][-1],
        "systemd": re.findall(r"^ExecStart=(.+)$", (ROOT / "deploy/systemd/guardsvc-web.service").read_text(),
                              re.M)[0],
        "compose": " ".join(compose["services"]["web"].get("command", ["(the image's CMD)"])),
    }


def test_every_way_of_starting_the_server_leaves_its_settings_to_gunicorn_conf_py():
    lines = _start_lines()
    assert lines["Dockerfile"] == '["gunicorn", "wsgi:app"]'
    assert lines["scripts/run"].split() == [".venv/bin/gunicorn", "wsgi:app"]
    assert lines["systemd"].split()[1:] == ["wsgi:app"] and lines["systemd"].endswith("/bin/gunicorn wsgi:app")
    assert lines["compose"] == "(the image's CMD)"
    for where, line in lines.items():
        assert "--" not in line, (where, line)  # no flag repeats what the configuration file says
    assert "from guardsvc.gunicorn_conf import *" in (ROOT / "gunicorn.conf.py").read_text()


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
    mounted, inside = services["nginx"]["volumes"][0].split(":")[:2]
    assert (ROOT / "deploy" / mounted).resolve() == (ROOT / "deploy/nginx").resolve()
    assert f"{inside}/render {inside} /etc/nginx/conf.d " in services["nginx"]["command"][-1]
    assert set(compose["secrets"]) >= {"database_url", "secret_key", "forward_auth_secret"}


def test_systemd_units_run_web_and_worker_unprivileged():
    for name, command in (("guardsvc-web", "gunicorn"), ("guardsvc-worker", "worker")):
        unit = (ROOT / f"deploy/systemd/{name}.service").read_text()
        assert re.search(r"^User=guardsvc$", unit, re.M) and "NoNewPrivileges=true" in unit
        assert re.search(rf"^ExecStart=.*{command}", unit, re.M) and "EnvironmentFile=" in unit
        assert "[Install]" in unit and "WantedBy=multi-user.target" in unit


def test_the_render_script_fills_every_placeholder_the_way_the_suite_does(tmp_path):
    from tests.support.nginx_support import nginx_conf

    (tmp_path / "secret").write_text("rahasia-proksi-yang-panjang-0123456789\n")
    subprocess.run([str(ROOT / "deploy/nginx/render"), str(ROOT / "deploy/nginx"), str(tmp_path / "conf"),
                    str(tmp_path / "state"), "127.0.0.1:8080", "127.0.0.1:8000", "127.0.0.1:3000",
                    str(tmp_path / "secret")], check=True)
    rendered = "\n".join((tmp_path / "conf" / name).read_text() for name in ("guardsvc-http.conf", "guardsvc.conf"))
    assert "@" + "LISTEN@" not in rendered and not re.search(r"@[A-Z]+@", rendered)
    assert (tmp_path / "state" / "guardsvc_edge.lua").read_bytes() == (ROOT / "deploy/nginx/guardsvc_edge.lua").read_bytes()
    (tmp_path / "suite").mkdir()
    expected = nginx_conf(tmp_path / "suite", port=8080, guardsvc="127.0.0.1:8000", app="127.0.0.1:3000",
                          secret="rahasia-proksi-yang-panjang-0123456789").replace(str(tmp_path / "suite" / "state"), str(tmp_path / "state"))
    assert rendered.replace("\n", "") in expected.replace("\n", "")
    (tmp_path / "bad").write_text("a'b; evil")
    refused = subprocess.run([str(ROOT / "deploy/nginx/render"), str(ROOT / "deploy/nginx"), str(tmp_path / "c2"),
                              str(tmp_path / "s2"), "80", "g:1", "a:1", str(tmp_path / "bad")], capture_output=True)
    assert refused.returncode == 2 and not (tmp_path / "c2").exists()
