"""``flask blocks import FILE``: blocklists as FireHOL, Spamhaus and CrowdSec hand them out.

Most tests run the command as an operator does, in a process of its own on a
freshly migrated database (tests/support/cli_processes.py), then read that database.
"""
import json

import pytest
from sqlalchemy import create_engine, text

from guardsvc.blocks.bulk_import import REPORTED_BAD_LINES, entry_text
from guardsvc.audit.models import AuditEvent
from guardsvc.blocks.models import Block
from guardsvc.blocks.service import find_active_block
from guardsvc.extensions import db
from guardsvc.webhooks.models import HookDelivery
from tests.support.cli_processes import CommandProcess
from tests.project.test_cli_first_command import _environment, fresh_databases  # noqa: F401
from tests.support.webhook_receiver import private_targets_allowed  # noqa: F401

LOOPBACK_NEVER_BLOCKED = "127.0.0.0/8,::1/128"  # the default, given back (the suite sets "none")

FIREHOL = """\
#
# firehol_level1 (FireHOL netset header)
#
203.0.113.0/24
198.51.100.7
2001:db8:1::/64
2001:DB8:0:0:0:0:0:9
::ffff:192.0.2.0/120
"""
SPAMHAUS = """\
; Spamhaus DROP List 2026/11/27
; Last-Modified: Fri, 27 Nov 2026 00:00:00 GMT
198.18.0.0/15 ; SBL123
198.51.100.7 ; SBL456

203.0.113.0/24   # a trailing comment
198.18.0.0/15 ; SBL123 listed twice
"""


def reported(err):
    """What the command said on stderr about the list (not the warnings of the settings)."""
    return [line for line in err.strip().splitlines() if line.startswith(("baris ", "line ", "... ", "Error: "))]


class Imported:
    """One ``blocks import`` run in its own process on a fresh database: its outcome and that database."""

    def __init__(self, databases, folder, content, *options, env=None):
        self.url = databases.new()
        folder.mkdir(exist_ok=True)
        path = folder / "list.netset"
        path.write_text(content, encoding="utf-8")
        self.env = {**_environment(self.url, folder), **(env or {})}
        self.folder, self.path = folder, path
        self.code, self.out, self.err = self.run(*options)

    def run(self, *options, content=None):
        if content is not None:
            self.path.write_text(content, encoding="utf-8")
        command = self.folder / f"run-{len(list(self.folder.glob('run-*')))}"
        command.mkdir()
        code, out, err = CommandProcess(["blocks", "import", str(self.path), *options], self.env, command).wait()
        assert "Traceback" not in err, err
        return code, out, err

    def query(self, sql):
        engine = create_engine(self.url.replace("postgresql://", "postgresql+psycopg://", 1))
        try:
            with engine.connect() as conn:
                return conn.execute(text(sql)).all()
        finally:
            engine.dispose()

    def networks(self):
        return sorted(row.network for row in self.query("SELECT network FROM blocks WHERE lifted_at IS NULL"))


@pytest.fixture()
def imported(fresh_databases, tmp_path):  # noqa: F811
    return lambda content, *options, **kwargs: Imported(fresh_databases, tmp_path / "import", content, *options,
                                                        **kwargs)


def test_a_firehol_list_is_imported_ipv4_and_ipv6(imported):
    run = imported(FIREHOL)
    assert run.code == 0, run.err
    assert run.out.strip().splitlines()[-1] == (
        "5 blokir ditambahkan, 0 dilewati (0 sudah diblokir, 0 ganda dalam daftar, 0 baris salah) dari 8 baris.")
    assert run.networks() == sorted(["203.0.113.0/24", "198.51.100.7/32", "2001:db8:1::/64", "2001:db8::9/128",
                                     "192.0.2.0/24"])
    references = [row.reference for row in run.query("SELECT reference FROM blocks")]
    assert len(set(references)) == 5 and all(len(reference) == 12 and reference.startswith("BLK-")
                                              for reference in references)
    reasons = {row.reason for row in run.query("SELECT reason FROM blocks")}
    assert reasons == {"Daftar blokir list.netset"}
    [audit] = run.query("SELECT action, target, details FROM audit_events")
    assert (audit.action, audit.target) == ("blocks.imported", "blocklist:list.netset")
    assert json.loads(audit.details) | {"reason": None} == {
        "added": 5, "existing": 0, "duplicates": 0, "bad_lines": 0, "lines": 8, "expires_at": None, "reason": None}


def test_spamhaus_comments_repeats_and_blocks_already_there_are_skipped(imported):
    run = imported(FIREHOL)
    code, out, err = run.run("--reason", "Spamhaus DROP", content=SPAMHAUS)
    assert code == 0, err
    # 198.51.100.7 and 203.0.113.0/24 are blocked already (by the first list); 198.18.0.0/15 is listed twice.
    assert out.strip().splitlines()[-1] == (
        "1 blokir ditambahkan, 3 dilewati (2 sudah diblokir, 1 ganda dalam daftar, 0 baris salah) dari 7 baris.")
    assert run.query("SELECT reason FROM blocks WHERE network = '198.18.0.0/15'")[0].reason == "Spamhaus DROP"
    assert len(run.query("SELECT id FROM blocks WHERE network = '198.51.100.7/32'")) == 1
    assert len(run.query("SELECT id FROM audit_events WHERE action = 'blocks.imported'")) == 2


def test_a_lifted_or_narrowed_block_does_not_count_as_blocked(imported):
    run = imported("198.51.100.7\n")
    engine = create_engine(run.url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(text("UPDATE blocks SET lifted_at = created_at"))
        conn.execute(text("INSERT INTO blocks (reference, network, local_ip, created_at, device_issued, self_release) "
                          "VALUES ('BLK-0000AAAA', '198.51.100.8/32', '10.0.0.1', CURRENT_TIMESTAMP, false, false)"))
    engine.dispose()
    code, out, err = run.run(content="198.51.100.7\n198.51.100.8\n")
    assert code == 0, err
    assert out.strip().splitlines()[-1].startswith("2 blokir ditambahkan, 0 dilewati")


def test_a_list_with_bad_lines_imports_nothing_and_says_which(imported):
    content = "198.51.100.1\nbukan-alamat\n203.0.113.5/24\n2001:db8::/64 extra\n198.51.100.2\n"
    run = imported(content)
    assert run.code == 1
    assert run.networks() == []
    assert run.query("SELECT id FROM audit_events") == []
    lines = reported(run.err)
    assert lines[0].startswith("baris 2: bukan-alamat: ")
    assert lines[1].startswith("baris 3: 203.0.113.5/24: ")
    assert lines[2].startswith("baris 4: 2001:db8::/64 extra: ")
    assert "3 baris salah: tidak ada yang diimpor (--skip-bad" in lines[-1]


def test_skip_bad_imports_the_good_lines_and_reports_the_bad(imported):
    bad = REPORTED_BAD_LINES + 5
    content = "198.51.100.1\n" + "salah\n" * bad + "198.51.100.2\n"
    run = imported(content, "--skip-bad")
    assert run.code == 0, run.err
    assert run.networks() == ["198.51.100.1/32", "198.51.100.2/32"]
    said = reported(run.err)
    assert said[0].startswith("baris 2: salah: ") and said[REPORTED_BAD_LINES - 1].startswith(
        f"baris {REPORTED_BAD_LINES + 1}: ")
    assert said[REPORTED_BAD_LINES:] == ["... dan 5 baris salah lainnya"]
    assert run.out.strip().splitlines()[-1].endswith(f"({0} sudah diblokir, 0 ganda dalam daftar, {bad} baris salah) "
                                                     f"dari {bad + 2} baris.")


def test_ranges_too_wide_to_be_anything_but_a_mistake_are_refused(imported):
    run = imported("0.0.0.0/0\n10.0.0.0/7\n10.0.0.0/8\n::/0\n2001:db8::/31\n2001:db8::/32\n")
    assert run.code == 1 and run.networks() == []
    assert [line.split(": ", 1)[0] for line in reported(run.err)[:-1]] == [
        "baris 1", "baris 2", "baris 4", "baris 5"]
    assert "terlalu luas untuk diblokir: paling luas /8 untuk IPv4" in run.err
    assert "paling luas /32 untuk IPv6" in run.err
    code, out, err = run.run("--skip-bad")
    assert code == 0 and run.networks() == ["10.0.0.0/8", "2001:db8::/32"]


def test_the_widest_block_is_the_operators_to_set(imported):
    run = imported("10.0.0.0/7\n", env={"GUARDSVC_WIDEST_BLOCK": "/6,/24"})
    assert run.code == 0, run.err
    assert run.networks() == ["10.0.0.0/7"]


def test_the_never_blocked_networks_are_refused_by_default(imported):
    run = imported("127.0.0.1\n126.0.0.0/7\n::1\n198.51.100.1\n", env={"GUARDSVC_NEVER_BLOCK": LOOPBACK_NEVER_BLOCKED})
    assert run.code == 1
    assert "baris 1: 127.0.0.1: 127.0.0.1/32 tidak boleh diblokir: mengenai jaringan 127.0.0.0/8" in run.err
    assert "baris 2: 126.0.0.0/7:" in run.err and "baris 3: ::1: ::1/128 tidak boleh diblokir" in run.err
    code, out, err = run.run("--skip-bad")
    assert code == 0 and run.networks() == ["198.51.100.1/32"]


def test_an_empty_or_comment_only_list_adds_nothing(imported):
    run = imported("# nothing here\n\n; still nothing\n")
    assert run.code == 0, run.err
    assert run.out.strip().splitlines()[-1].startswith("0 blokir ditambahkan, 0 dilewati")


def test_english_when_the_operator_reads_english(imported):
    run = imported("198.51.100.1\nsalah\n", env={"GUARDSVC_DEFAULT_LOCALE": "en"})
    assert run.code == 1
    assert "line 2: salah: " in run.err and "1 bad lines: nothing was imported" in run.err


@pytest.mark.parametrize("line,entry", [
    ("1.2.3.0/24 ; SBL123", "1.2.3.0/24"), ("1.2.3.4 # note", "1.2.3.4"), ("  2001:db8::/64\t", "2001:db8::/64"),
    ("# 1.2.3.4", ""), ("; comment", ""), ("", ""), ("1.2.3.4;x#y", "1.2.3.4"),
])
def test_comments_are_cut_where_they_start(line, entry):
    assert entry_text(line) == entry


def test_standard_input_minutes_and_self_release(app, runner):
    result = runner.invoke(args=["blocks", "import", "-", "--minutes", "30", "--self-release"],
                           input="198.51.100.20\n2001:db8:5::/64\n")
    assert result.exit_code == 0, result.output
    with app.app_context():
        block = find_active_block("2001:db8:5::1")
        assert block.self_release and block.expires_at is not None
        assert (block.expires_at - block.created_at).total_seconds() == 30 * 60
        assert block.reason == "Daftar blokir stdin"
        assert db.session.query(Block).count() == 2


@pytest.mark.parametrize("minutes", ["0", "-1", "abc"])
def test_bad_minutes_are_a_usage_error(app, runner, minutes):
    result = runner.invoke(args=["blocks", "import", "-", "--minutes", minutes], input="198.51.100.20\n")
    assert result.exit_code == 2
    with app.app_context():
        assert db.session.query(Block).count() == 0


def test_an_import_is_one_webhook_event_with_its_counts(app, runner, private_targets_allowed):  # noqa: F811
    added = runner.invoke(args=["webhooks", "add", "http://127.0.0.1:9/", "--events", "blocks.imported,block.created"])
    assert added.exit_code == 0, added.output
    content = "".join(f"198.51.100.{n}\n" for n in range(1, 51))
    result = runner.invoke(args=["blocks", "import", "-"], input=content)
    assert result.exit_code == 0, result.output
    with app.app_context():
        [delivery] = db.session.query(HookDelivery).all()
        body = json.loads(delivery.body)
    assert body["type"] == "blocks.imported"
    assert body["data"] | {"created_at": None} == {
        "source": "stdin", "added": 50, "existing": 0, "duplicates": 0, "bad_lines": 0, "lines": 50,
        "created_at": None, "expires_at": None, "self_release": False, "site": app.config["BASE_URL"]}


@pytest.mark.parametrize("read_every_reference", [False, True], ids=["probed", "read-at-once"])
def test_references_other_blocks_have_are_never_given_again(app, runner, make_block, monkeypatch,
                                                            read_every_reference):
    from guardsvc.blocks import bulk_import

    taken = make_block(network="203.0.113.1")
    real, draws = bulk_import.os.urandom, []

    def urandom(size):  # the first draw of the random source names the reference a block has
        draws.append(size)
        return bytes.fromhex(taken[4:]) * (size // 4) if len(draws) == 1 else real(size)

    monkeypatch.setattr(bulk_import.os, "urandom", urandom)
    monkeypatch.setattr(bulk_import, "READ_EVERY_REFERENCE_FROM", 1 if read_every_reference else 10**9)
    result = runner.invoke(args=["blocks", "import", "-"], input="198.51.100.1\n198.51.100.2\n")
    assert result.exit_code == 0, result.output
    with app.app_context():
        references = db.session.scalars(db.select(Block.reference)).all()
    assert len(draws) > 1 and len(references) == len(set(references)) == 3 and taken in references


def test_a_reason_with_tabs_newlines_and_backslashes_is_stored_as_given(app, runner):
    reason = "daftar\tA\\B\nbaris dua; # bukan komentar"
    result = runner.invoke(args=["blocks", "import", "-", "--reason", reason], input="198.51.100.1\n2001:db8::/48\n")
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert {block.reason for block in db.session.scalars(db.select(Block))} == {reason}
        assert find_active_block("198.51.100.1").created_at is not None


def test_a_reference_taken_meanwhile_by_another_writer_is_drawn_again(app, runner, make_block, monkeypatch):
    from guardsvc.blocks import bulk_import

    taken = make_block(network="203.0.113.1")
    real, draws = bulk_import._new_references, []

    def draw(count, avoid):  # the first draw hits a reference the probe did not see (written since)
        draws.append(count)
        return [taken, *real(count - 1, avoid)] if len(draws) == 1 else real(count, avoid)

    monkeypatch.setattr(bulk_import, "_new_references", draw)
    monkeypatch.setattr(bulk_import._RowWriter, "_select", lambda self, sql, values, *extra: set())
    result = runner.invoke(args=["blocks", "import", "-"], input="198.51.100.1\n198.51.100.2\n198.51.100.3\n")
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1].startswith("3 blokir ditambahkan, 0 dilewati")
    with app.app_context():
        references = db.session.scalars(db.select(Block.reference)).all()
        assert db.session.scalar(db.select(db.func.count()).select_from(AuditEvent)) == 2  # the block, the import
    assert len(draws) == 2 and len(references) == len(set(references)) == 4
