"""The local mailbox: without a mail server, mail is kept whole for this machine's owner, never in the log."""
import logging
import os
import stat
import time

import pytest

from guardsvc.outbox.mailbox import SUFFIX
from tests.support.factories import submit_body

LINK = "http://localhost:8000/banding/tiket/"


@pytest.fixture()
def mailbox(app, monkeypatch, tmp_path):
    """No mail server; the mailbox a folder of this test's own (not there yet)."""
    folder = tmp_path / "kotak" / "mail"
    monkeypatch.setitem(app.config, "MAIL_SERVER", None)
    monkeypatch.setitem(app.config, "MAILBOX_DIR", str(folder))
    return folder


def deliver(runner):
    result = runner.invoke(args=["mail", "deliver", "--once"])
    assert result.exit_code == 0, result.output
    return result.output


def appeal(client, email="budi@example.com", ip="198.51.100.7"):
    reply = client.post("/api/guard/unblock-tickets/submit", json=submit_body(email=email),
                        environ_base={"REMOTE_ADDR": ip})
    assert reply.status_code == 201
    return reply.get_json()["ticket_number"]


def test_mail_is_kept_whole_for_the_owner_only_and_the_log_says_only_where(client, runner, mailbox, caplog):
    ticket = appeal(client)
    with caplog.at_level(logging.INFO, logger="guardsvc.mail"):
        assert "sent 1" in deliver(runner)
    [kept] = list(mailbox.glob(f"*{SUFFIX}"))
    assert stat.S_IMODE(os.stat(mailbox).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    assert "kept in the local mailbox as" in caplog.text and kept.name in caplog.text and "mail show" in caplog.text
    assert LINK not in caplog.text and "budi@example.com" not in caplog.text and ticket not in caplog.text
    shown = runner.invoke(args=["mail", "show"])
    assert shown.exit_code == 0
    assert "To: budi@example.com" in shown.output and ticket in shown.output
    assert LINK in shown.output  # the private ticket page, whole: a newcomer can open it


def test_show_last_prints_only_the_newest(client, runner, mailbox):
    first = appeal(client, email="satu@example.com", ip="198.51.100.8")
    deliver(runner)
    second = appeal(client, email="dua@example.com", ip="198.51.100.9")
    deliver(runner)
    everything = runner.invoke(args=["mail", "show"]).output
    assert everything.index(first) < everything.index(second)
    newest = runner.invoke(args=["mail", "show", "--last", "1"]).output
    assert second in newest and first not in newest
    assert runner.invoke(args=["mail", "show", "--last", "0"]).exit_code != 0


def test_an_empty_mailbox_says_how_mail_gets_there(runner, mailbox):
    result = runner.invoke(args=["mail", "show"])
    assert result.exit_code == 0 and "No mail in the local mailbox" in result.output and "worker" in result.output


def test_kept_mail_goes_after_the_retention_period(client, runner, mailbox, app):
    appeal(client)
    deliver(runner)
    [old] = list(mailbox.glob(f"*{SUFFIX}"))
    long_ago = time.time() - (app.config["RETENTION_DAYS"] + 1) * 24 * 3600
    os.utime(old, (long_ago, long_ago))
    appeal(client, email="baru@example.com", ip="198.51.100.10")
    deliver(runner)
    [kept] = list(mailbox.glob(f"*{SUFFIX}"))
    assert kept != old and "baru@example.com" in kept.read_text()
