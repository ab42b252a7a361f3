"""The fail2ban unban hook: an approval that lifts a block on an address queues the command in its
transaction; the worker runs it (no shell, the address one argument) until it exits 0."""
import json
import sys
from datetime import timedelta

import pytest
from sqlalchemy import select

from guardsvc.appeals import service as appeals
from guardsvc.extensions import db
from guardsvc.storage import clock
from guardsvc.webhooks.fail2ban import unban_argv
from guardsvc.webhooks.models import UNBAN, HookDelivery

FAKE_FAIL2BAN = """\
import json, pathlib, sys
calls = pathlib.Path(sys.argv[1])
with calls.open("a") as file:
    file.write(json.dumps(sys.argv[2:]) + "\\n")
if len(calls.read_text().splitlines()) == 1:
    sys.exit("fail2ban: the server is not answering yet")
"""


@pytest.fixture()
def fake_fail2ban(app, tmp_path, monkeypatch):
    """GUARDSVC_FAIL2BAN_UNBAN_COMMAND set to a script that writes down its arguments and fails the first time."""
    script, calls = tmp_path / "fail2ban-client", tmp_path / "calls.jsonl"
    script.write_text(FAKE_FAIL2BAN)
    monkeypatch.setitem(app.config, "FAIL2BAN_UNBAN_COMMAND", (sys.executable, str(script), str(calls), "unban",
                                                               "{ip}", "--note=ip {ip}"))
    return calls


def calls_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def unban_rows(app):
    with app.app_context():
        found = db.session.scalars(select(HookDelivery).where(HookDelivery.event_type == UNBAN)).all()
        db.session.expunge_all()
        return found


def deliver(runner):
    result = runner.invoke(args=["webhooks", "deliver"])
    assert result.exit_code == 0, result.output
    return result.output.strip()


def test_an_approval_unbans_the_lifted_address_retrying_until_it_works(app, runner, make_block, make_ticket,
                                                                       fake_fail2ban, monkeypatch):
    make_block(network="203.0.113.7")
    make_block(device_id="laptop-budi")
    make_block(network="203.0.113.0/24")  # a range is not lifted by an approval: nothing to unban
    number = make_ticket(ip="203.0.113.7", device="laptop-budi").ticket_number
    assert runner.invoke(args=["tickets", "decide", number, "--approve"]).exit_code == 0
    [job] = unban_rows(app)
    assert (job.body, job.endpoint_id, job.status) == ("203.0.113.7", None, "pending")
    now = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: now)
    assert deliver(runner) == "delivered 0, retrying 1, failed 0"
    [job] = unban_rows(app)
    assert job.last_error.endswith("exited with status 1: fail2ban: the server is not answering yet")
    assert timedelta(seconds=24) <= job.next_attempt_at - now <= timedelta(seconds=36)
    monkeypatch.setattr(clock, "utcnow", lambda: now + timedelta(seconds=37))
    assert deliver(runner) == "delivered 1, retrying 0, failed 0"
    assert calls_of(fake_fail2ban) == [["unban", "203.0.113.7", "--note=ip 203.0.113.7"]] * 2
    [job] = unban_rows(app)
    assert (job.status, job.attempts, job.body, job.last_error) == ("delivered", 2, "", None)


def test_an_unban_is_never_given_up_on(app, runner, make_block, make_ticket, fake_fail2ban, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOK_MAX_ATTEMPTS", 1)
    monkeypatch.setitem(app.config, "FAIL2BAN_UNBAN_COMMAND", (sys.executable, "-c", "import sys; sys.exit(2)", "{ip}"))
    make_block(network="2001:db8::7")
    assert runner.invoke(args=["tickets", "decide", make_ticket(ip="2001:db8::7").ticket_number,
                               "--approve"]).exit_code == 0
    start = clock.utcnow()
    for hours in range(3):
        monkeypatch.setattr(clock, "utcnow", lambda later=start + timedelta(hours=hours + 1): later)
        assert deliver(runner) == "delivered 0, retrying 1, failed 0"
    [job] = unban_rows(app)
    assert (job.status, job.attempts, job.body) == ("pending", 3, "2001:db8::7")


def test_a_command_that_hangs_is_stopped_at_its_timeout(app, runner, make_block, make_ticket, monkeypatch):
    monkeypatch.setitem(app.config, "FAIL2BAN_UNBAN_COMMAND",
                        (sys.executable, "-c", "import time; time.sleep(30)", "{ip}"))
    monkeypatch.setitem(app.config, "FAIL2BAN_TIMEOUT_SECONDS", 0.3)
    make_block(network="198.51.100.8")
    assert runner.invoke(args=["tickets", "decide", make_ticket(ip="198.51.100.8").ticket_number,
                               "--approve"]).exit_code == 0
    assert deliver(runner) == "delivered 0, retrying 1, failed 0"
    assert unban_rows(app)[0].last_error.endswith("did not finish within 0.3 s")


def test_nothing_is_queued_when_unset_or_when_the_approval_rolls_back(app, runner, make_block, make_ticket,
                                                                      fake_fail2ban, monkeypatch):
    make_block(network="198.51.100.9")
    number = make_ticket(ip="198.51.100.9").ticket_number
    with app.app_context():
        decision = appeals.decide_ticket(number, "approve")
        assert decision.lifted_blocks and db.session.scalar(select(HookDelivery.id)) is not None
        db.session.rollback()
    assert unban_rows(app) == []
    monkeypatch.setitem(app.config, "FAIL2BAN_UNBAN_COMMAND", None)
    assert runner.invoke(args=["tickets", "decide", number, "--approve"]).exit_code == 0
    assert unban_rows(app) == [] and calls_of(fake_fail2ban) == []


def test_the_address_is_one_argument_and_must_be_an_address():
    command = ("/usr/bin/fail2ban-client", "unban", "{ip}")
    assert unban_argv(command, "2001:db8::1") == ["/usr/bin/fail2ban-client", "unban", "2001:db8::1"]
    for hostile in ("203.0.113.7; rm -rf /", "203.0.113.7 --all", "$(id)", "-h"):
        with pytest.raises(ValueError):
            unban_argv(command, hostile)


@pytest.mark.parametrize("value, says", [
    ("fail2ban-client unban", "has no {ip} argument"),
    ("{ip}", "has no {ip} argument"),
    ("fail2ban-client 'unban {ip}", "cannot be split into words"),
])
def test_a_bad_command_setting_is_refused_at_start(monkeypatch, tmp_path, value, says):
    from guardsvc.config import SettingsError, load_settings

    monkeypatch.setenv("GUARDSVC_FAIL2BAN_UNBAN_COMMAND", value)
    with pytest.raises(SettingsError) as refused:
        load_settings(str(tmp_path))
    assert any(problem.startswith("GUARDSVC_FAIL2BAN_UNBAN_COMMAND") and says in problem
               for problem in refused.value.problems)


def test_the_command_setting_is_split_into_words(monkeypatch, tmp_path):
    from guardsvc.config import load_settings

    monkeypatch.setenv("GUARDSVC_FAIL2BAN_UNBAN_COMMAND", "sudo -n /usr/bin/fail2ban-client unban '{ip}'")
    assert load_settings(str(tmp_path))["FAIL2BAN_UNBAN_COMMAND"] == (
        "sudo", "-n", "/usr/bin/fail2ban-client", "unban", "{ip}")
