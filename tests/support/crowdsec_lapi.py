"""Debian's CrowdSec Local API, run unprivileged on loopback for the suite (``crowdsec -c CONFIG -no-cs``).

Everything lives in a scratch folder: the configuration (every path of the
shipped config.yaml moved there), its SQLite database, the credentials of
``cscli``. ``cscli`` registers the bouncer and machine guardsvc uses and adds
or deletes decisions as an operator would.
"""
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.debian_packages import unpacked_program
from tests.support.live import free_port

MACHINE_ID, MACHINE_PASSWORD = "guardsvc", "guardsvc-machine-password-1"

CONFIG = """\
common:
  daemonize: false
  log_media: stdout
  log_level: info
  working_dir: .
config_paths:
  config_dir: {dir}/etc/
  data_dir: {dir}/data/
  simulation_path: {dir}/etc/simulation.yaml
  hub_dir: {dir}/hub/
  index_path: {dir}/hub/.index.json
  notification_dir: {dir}/etc/notifications/
  plugin_dir: {dir}/plugins/
db_config:
  type: sqlite
  db_path: {dir}/data/crowdsec.db
  use_wal: false
  log_level: info
api:
  client:
    credentials_path: {dir}/etc/local_api_credentials.yaml
  server:
    log_level: info
    listen_uri: 127.0.0.1:{port}
    profiles_path: {dir}/etc/profiles.yaml
    trusted_ips:
      - 127.0.0.1
prometheus:
  enabled: false
"""


class Lapi:
    """A running LAPI: ``url``, ``bouncer_key``, ``cscli(...)``, ``settings`` for guardsvc."""

    def __init__(self):
        crowdsec = unpacked_program("crowdsec", "usr/bin/crowdsec")
        package = crowdsec.parents[2]
        self.dir = Path(tempfile.mkdtemp(prefix="guardsvc-lapi-"))
        for sub in ("etc", "data", "hub", "bin"):
            (self.dir / sub).mkdir()
        for program in ("crowdsec", "cscli"):
            shutil.copy(package / "usr/bin" / program, self.dir / "bin" / program)
        for name in ("profiles.yaml", "simulation.yaml"):
            shutil.copy(package / "etc/crowdsec" / name, self.dir / "etc" / name)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = self.dir / "etc/config.yaml"
        self.config.write_text(CONFIG.format(dir=self.dir, port=self.port))
        self.user = {}
        if os.geteuid() == 0:  # the LAPI never runs as root here
            nobody = pwd.getpwnam("nobody")
            self.user = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
            for path in [self.dir, *self.dir.rglob("*")]:
                os.chown(path, nobody.pw_uid, nobody.pw_gid)
        self.dir.chmod(0o755)
        self.log = open(self.dir / "lapi.log", "wb")
        self.process = subprocess.Popen([str(self.dir / "bin/crowdsec"), "-c", str(self.config), "-no-cs"],
                                        cwd=self.dir, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True, **self.user)
        self._wait()
        self.cscli("machines", "add", "cli", "--auto", "-f", str(self.dir / "etc/local_api_credentials.yaml"))
        self.cscli("machines", "add", MACHINE_ID, "--password", MACHINE_PASSWORD, "-f", "/dev/null")
        self.bouncer_key = self.cscli("bouncers", "add", "guardsvc", "-o", "raw").strip()

    def _wait(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"crowdsec exited: {(self.dir / 'lapi.log').read_text()[-2000:]}")
            try:
                urllib.request.urlopen(self.url + "/v1/decisions", timeout=1)
            except urllib.error.HTTPError:
                return  # answering (403 without a key)
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("crowdsec LAPI did not start in time")

    def cscli(self, *args):
        result = subprocess.run([str(self.dir / "bin/cscli"), "-c", str(self.config), *args], cwd=self.dir,
                                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, **self.user)
        if result.returncode != 0:
            raise RuntimeError(f"cscli {' '.join(args)}: {result.stderr}")
        return result.stdout

    def decisions(self):
        """``{value: decision id}`` of the active decisions, as cscli lists them."""
        alerts = json.loads(self.cscli("decisions", "list", "-o", "json") or "null") or []
        return {decision["value"]: decision["id"] for alert in alerts for decision in alert["decisions"] or []}

    @property
    def settings(self):
        return {"CROWDSEC_LAPI_URL": self.url, "CROWDSEC_BOUNCER_KEY": self.bouncer_key,
                "CROWDSEC_MACHINE_ID": MACHINE_ID, "CROWDSEC_MACHINE_PASSWORD": MACHINE_PASSWORD}

    @property
    def env(self):
        return {"GUARDSVC_" + name: value for name, value in self.settings.items()}

    def stop(self):
        try:
            os.killpg(self.process.pid, 9)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def lapi():
    server = Lapi()
    yield server
    server.stop()


@pytest.fixture()
def lapi_clean(lapi):
    """The LAPI without decisions before the test."""
    if lapi.decisions():
        lapi.cscli("decisions", "delete", "--all")
    return lapi
