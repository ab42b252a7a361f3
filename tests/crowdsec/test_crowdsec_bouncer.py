"""Debian's crowdsec-custom-bouncer, unmodified, enforces guardsvc's blocks through the decision stream.

The bouncer (run unprivileged, pulling every second from a live gunicorn)
calls a script for each decision; the script writes what it was told. Run
alone with ``-m crowdsec``.
"""
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from guardsvc.extensions import db
from tests.support.debian_packages import unpacked_program
from tests.support.live import wait_for

pytestmark = [pytest.mark.crowdsec, pytest.mark.live]
BLOCKED_IP = "192.0.2.7"
RANGE, ALLOWED = "198.51.100.0/29", "198.51.100.5"
# 198.51.100.0/29 minus .5: the fewest CIDR ranges covering the other seven addresses.
RANGE_PIECES = {"198.51.100.0/30", "198.51.100.4", "198.51.100.6/31"}

SCRIPT = textwrap.dedent("""\
    #!/bin/sh
    # crowdsec-custom-bouncer calls: add|del VALUE SECONDS SCENARIO JSON
    printf '%s\\t%s\\t%s\\t%s\\t%s\\n' "$1" "$2" "$3" "$4" "$5" >> "$(dirname "$0")/calls.log"
""")


class Workspace:
    """A folder the bouncer's user can read and write, with the binary, the script and the config."""

    def __init__(self, binary):
        self.path = Path(tempfile.mkdtemp(prefix="guardsvc-bouncer-"))
        self.binary = self.path / "crowdsec-custom-bouncer"
        shutil.copy(binary, self.binary)
        self.script = self.path / "enforce.sh"
        self.script.write_text(SCRIPT)
        self.log = self.path / "calls.log"
        self.log.touch()
        for path in (self.binary, self.script):
            path.chmod(0o755)
        self.user = None
        if os.geteuid() == 0:  # never run the bouncer as root: it would be the one privileged part here
            self.user = pwd.getpwnam("nobody")
            for path in (self.path, self.log):
                os.chown(path, self.user.pw_uid, self.user.pw_gid)
        self.path.chmod(0o755)

    def config(self, api_url, api_key):
        config = self.path / "bouncer.yaml"
        config.write_text(textwrap.dedent(f"""\
            bin_path: {self.script}
            feed_via_stdin: false
            total_retries: 0
            update_frequency: 1s
            cache_retention_duration: 1s
            daemonize: false
            log_mode: stdout
            log_level: info
            api_url: {api_url}/crowdsec/
            api_key: {api_key}
            prometheus:
              enabled: false
            """))
        config.chmod(0o644)
        return config

    def calls(self):
        """``[(action, value, seconds, scenario, decision)]`` the script has been called with."""
        rows = [line.split("\t") for line in self.log.read_text().splitlines() if line.count("\t") == 4]
        return [(action, value, int(seconds), scenario, json.loads(decision))
                for action, value, seconds, scenario, decision in rows]


@pytest.fixture()
def bouncer_process(app, live_server, runner):
    binary = unpacked_program("crowdsec-custom-bouncer", "usr/bin/crowdsec-custom-bouncer")
    workspace = Workspace(binary)
    result = runner.invoke(args=["bouncers", "add", "custom-bouncer"])
    assert result.exit_code == 0, result.output
    config = workspace.config(live_server.url, result.output.strip().splitlines()[-1])
    processes = []

    def start():
        kwargs = {"user": workspace.user.pw_uid, "group": workspace.user.pw_gid} if workspace.user else {}
        process = subprocess.Popen([str(workspace.binary), "-c", str(config)], cwd=workspace.path,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True, **kwargs)
        processes.append(process)
        return workspace

    yield start
    for process in processes:
        process.kill()
        output = process.communicate()[0].decode(errors="replace")
        if process.returncode not in (-9, 0):
            print(output)
    shutil.rmtree(workspace.path, ignore_errors=True)


def test_custom_bouncer_bans_blocks_and_unbans_a_lift(app, make_block, runner, bouncer_process):
    from guardsvc.blocks.allows import add_allow_entry

    ip_reference = make_block(network=BLOCKED_IP, reason="scan")
    range_reference = make_block(network=RANGE, minutes=60)
    make_block(device_id="device-not-in-the-stream")
    with app.app_context():
        add_allow_entry(network=ALLOWED, reason="an office printer")
        db.session.commit()
    workspace = bouncer_process()

    def added():
        return {value: (seconds, scenario) for action, value, seconds, scenario, _ in workspace.calls()
                if action == "add"}

    seen = wait_for(lambda: (lambda found: found if {BLOCKED_IP, *RANGE_PIECES} <= set(found) else None)(added()),
                    "add for the IP block and for the range minus the allowed address")
    assert set(seen) == {BLOCKED_IP, *RANGE_PIECES}  # no allowed address, no device block, no whole range
    assert seen[BLOCKED_IP][1] == f"guardsvc/{ip_reference}"
    assert seen[BLOCKED_IP][0] > 5 * 365 * 86400  # no expiry: a very long ban
    assert {seen[piece][1] for piece in RANGE_PIECES} == {f"guardsvc/{range_reference}"}
    assert all(3500 <= seen[piece][0] <= 3600 for piece in RANGE_PIECES)
    decision = next(call[4] for call in workspace.calls() if call[1] == BLOCKED_IP)
    assert (decision["origin"], decision["type"], decision["scope"]) == ("guardsvc", "ban", "Ip")

    lifted_at = time.monotonic()
    assert runner.invoke(args=["blocks", "lift", ip_reference]).exit_code == 0
    wait_for(lambda: any(action == "del" and value == BLOCKED_IP for action, value, *_ in workspace.calls()),
             "del for the lifted IP block", timeout=5)
    assert time.monotonic() - lifted_at < 5
    assert not any(action == "del" and value in RANGE_PIECES for action, value, *_ in workspace.calls())
