"""A proxy secret set by hand is at least 32 characters: a shorter one stops the start (server and commands).

GUARDSVC_FORWARD_AUTH_SECRET is all that stands between anyone who reaches
guardsvc and forward auth's answers and the whole block list; the generated
one has 64 characters. The value itself is never repeated in the error.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_processes import CommandProcess
from tests.support.live import ROOT, free_port

pytestmark = pytest.mark.live
SHORT = "rahasia-proksi-pendek"  # 21 characters
LONG_ENOUGH = "r" * 32


def edge_secret(tmp_path, **env):
    folder = tmp_path / "command"
    (folder / "instance").mkdir(parents=True)
    return CommandProcess(["edge", "secret"], {"GUARDSVC_INSTANCE_PATH": str(folder / "instance"), **env},
                          folder).wait()


def test_a_short_secret_stops_a_command(tmp_path):
    code, out, err = edge_secret(tmp_path, GUARDSVC_FORWARD_AUTH_SECRET=SHORT)
    assert code == 2 and out == "", (code, out, err)
    assert "GUARDSVC_FORWARD_AUTH_SECRET: 21 characters, at least 32 needed" in err and SHORT not in err, err


def test_a_short_secret_in_a_file_stops_a_command_too(tmp_path):
    secret = tmp_path / "forward_auth_secret"
    secret.write_text(SHORT + "\n")
    code, out, err = edge_secret(tmp_path, GUARDSVC_FORWARD_AUTH_SECRET="", GUARDSVC_FORWARD_AUTH_SECRET_FILE=str(secret))
    assert code == 2 and "at least 32 needed" in err and SHORT not in err, err


def test_32_characters_are_enough(tmp_path):
    code, out, err = edge_secret(tmp_path, GUARDSVC_FORWARD_AUTH_SECRET=LONG_ENOUGH)
    assert code == 0 and out.strip() == LONG_ENOUGH, (code, out, err)


def test_a_short_secret_stops_the_server(tmp_path):
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    done = subprocess.run([gunicorn, "--log-level", "warning", "wsgi:app"], cwd=ROOT, timeout=120, capture_output=True,
                          text=True, env={**os.environ, "GUARDSVC_BIND": f"127.0.0.1:{free_port()}",
                                          "GUARDSVC_WORKERS": "1", "GUARDSVC_FORWARD_AUTH_SECRET": SHORT,
                                          "GUARDSVC_INSTANCE_PATH": str(tmp_path),
                                          "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")})
    assert done.returncode != 0
    assert "GUARDSVC_FORWARD_AUTH_SECRET: 21 characters" in done.stderr and SHORT not in done.stderr, done.stderr
