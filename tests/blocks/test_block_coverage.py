"""However the world is split (contract section 15, fifth edition): what all active blocks cover is capped.

Each ``/8`` passes the widest-block rule alone; 255 of them would answer 403 to
everyone. ``GUARDSVC_MAX_COVERAGE`` (default 5 % of the public IPv4 space) caps
what all active IP blocks cover together, on every door: the CLI, the API, the
admin form, an import (refused whole, naming the first line past the cap) and
CrowdSec (a list's decisions refused together, logged and counted).
"""
import logging
from datetime import timedelta

import pytest
from sqlalchemy import select, text

from guardsvc.blocks import coverage
from guardsvc.blocks.models import Block
from guardsvc.crowdsec import source
from guardsvc.extensions import db
from guardsvc.metrics import counters
from guardsvc.storage import clock
from tests.support.blocks_helpers import PROXY_SECRET, from_ip
from tests.support.cli_processes import CommandProcess
from tests.support.live import LiveServer, all_at_once
from tests.support.pages_support import post_form, sign_in_session, text_of

# Every /8 but loopback, as the review's list had them: 255 lines.
WORLD = [f"{first}.0.0.0/8" for first in range(256) if first != 127]
# The first of them past 5 %: 1-9, 11, 12 (0 and 10 are not public) cover 4.98 %; 13.0.0.0/8 is line 14.
FIRST_PAST_DEFAULT = 14
EVERYONE = ("8.8.8.8", "1.1.1.1", "203.0.113.9")
SLASH8 = 1 << 24


def refused_count(name):
    return counters.BLOCKS_REFUSED.labels(source=name)._value.get()


def passes_forward_auth(client, ip):
    answer = client.get("/api/guard/forward-auth", headers={"X-Guardsvc-Secret": PROXY_SECRET}, **from_ip(ip))
    return answer.status_code == 204


def host_check_blocked(client, headers, ip):
    answer = client.get(f"/api/guard/blocks/check?ip={ip}", headers=headers)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["data"]["blocked"]


def import_process(tmp_path, content, *options, env=None):
    """``flask blocks import FILE`` in a process of its own, on the suite's database: (status, stdout, stderr)."""
    path = tmp_path / "world.netset"
    path.write_text(content, encoding="utf-8")
    folder = tmp_path / f"run-{len(list(tmp_path.glob('run-*')))}"
    (folder / "instance").mkdir(parents=True)
    return CommandProcess(["blocks", "import", str(path), *options],
                          {"GUARDSVC_INSTANCE_PATH": str(folder / "instance"), **(env or {})}, folder).wait()


def networks(app):
    with app.app_context():
        found = db.session.scalars(select(Block.network).where(Block.lifted_at.is_(None))).all()
        db.session.remove()
        return sorted(found)


def test_the_public_ipv4_space_is_global_unicast_only():
    assert coverage.PUBLIC_IPV4 == 3_702_258_432
    assert coverage.public_addresses_of("8.0.0.0/8") == SLASH8
    for private in ("10.0.0.0/8", "127.0.0.0/8", "224.0.0.0/8", "192.168.1.0/24", "198.51.100.7/32", "0.0.0.0/8"):
        assert coverage.public_addresses_of(private) == 0, private
    # 192/8 holds 192.0.0.0/24, 192.0.2.0/24, 192.88.99.0/24 and 192.168.0.0/16.
    assert coverage.public_addresses_of("192.0.0.0/8") == SLASH8 - 3 * 256 - 65536
    assert coverage.public_addresses_of("100.0.0.0/8") == SLASH8 - (1 << 22)
    assert coverage.public_addresses_of("2001:db8::/32") == 0 and coverage.public_addresses_of("8.8.8.8/32") == 1
    assert sum(coverage.public_addresses_of(line) for line in WORLD) == coverage.PUBLIC_IPV4


def test_the_world_in_255_lines_is_refused_whole_naming_the_line_and_everyone_still_passes(
        app, client, bearer, tmp_path):
    code, out, err = import_process(tmp_path, "\n".join(WORLD) + "\n")
    assert "Traceback" not in err, err
    assert code == 1, (out, err)
    assert f"baris {FIRST_PAST_DEFAULT}: 13.0.0.0/8: 13.0.0.0/8 tidak dapat diblokir: bersama blokir yang aktif, " \
           "blokir akan menutupi 5,44% ruang alamat IPv4 publik, melebihi batas 5%." in err
    assert f"Tidak ada yang diimpor: daftar ini akan membuat blokir menutupi lebih dari 5% ruang alamat IPv4 " \
           f"publik; baris {FIRST_PAST_DEFAULT} yang pertama melewatinya." in err
    assert networks(app) == []
    _, service = bearer("service")
    for ip in EVERYONE:
        assert passes_forward_auth(client, ip), ip
        assert host_check_blocked(client, service, ip) is False
    # --skip-bad is for bad lines: a list past the cap is refused whole all the same.
    code, out, err = import_process(tmp_path, "\n".join(WORLD) + "\nbukan-alamat\n", "--skip-bad")
    assert code == 1 and f"baris {FIRST_PAST_DEFAULT} yang pertama melewatinya" in err
    assert networks(app) == []


def test_english_for_an_operator_who_reads_english(app, tmp_path):
    code, _, err = import_process(tmp_path, "\n".join(WORLD) + "\n", env={"GUARDSVC_DEFAULT_LOCALE": "en"})
    assert code == 1
    assert "line 14: 13.0.0.0/8: 13.0.0.0/8 cannot be blocked: together with the active blocks, blocks would " \
           "cover 5.44% of the public IPv4 address space, past the limit of 5%." in err
    assert "line 14 is the first to pass it" in err


def test_a_list_the_size_of_real_ones_imports(app, client, tmp_path):
    # The public part of FireHOL level 1 with Spamhaus DROP inside it is about 0.52 % of the public space
    # (docs/operations.md): 300 /16 ranges (0.53 %) and a thousand addresses stand for it, bogons included.
    ranges = [f"{20 + n // 200}.{n % 200}.0.0/16" for n in range(300)]
    singles = [f"45.{n // 250}.{n % 250}.{n % 7 + 1}" for n in range(1000)]
    bogons = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
              "224.0.0.0/8", "240.0.0.0/8"]
    code, out, err = import_process(tmp_path, "\n".join(bogons + ranges + singles) + "\n")
    assert code == 0, err
    assert out.strip().splitlines()[-1].startswith("1308 blokir ditambahkan")
    with app.app_context():
        assert coverage.covered() == 300 * 65536 + 1000
    assert passes_forward_auth(client, "8.8.8.8") and not passes_forward_auth(client, "20.0.1.1")


@pytest.fixture()
def two_slash8s(app, monkeypatch):
    """A cap of 1 % (37,022,584 addresses): two /8s fit, a third does not."""
    monkeypatch.setitem(app.config, "MAX_COVERAGE", 0.01)


def test_every_door_refuses_a_block_past_the_cap_with_the_shape_of_a_too_wide_range(
        app, client, bearer, runner, make_user, make_block, two_slash8s):
    make_block(network="8.0.0.0/8")
    _, admin = bearer("admin")
    assert client.post("/api/admin/blocks", json={"ip": "9.0.0.0/8"}, headers=admin).status_code == 201
    before = refused_count("guardsvc")
    answer = client.post("/api/admin/blocks", json={"ip": "11.0.0.0/8", "reason": "uji"}, headers=admin)
    assert answer.status_code == 422
    assert answer.get_json()["errors"] == {"ip": [
        "11.0.0.0/8 tidak dapat diblokir: bersama blokir yang aktif, blokir akan menutupi 1,36% ruang alamat IPv4 "
        "publik, melebihi batas 1%."]}
    cli = runner.invoke(args=["blocks", "add", "--ip", "11.0.0.0/8"])
    assert cli.exit_code == 1 and "melebihi batas 1%" in cli.output and "Traceback" not in cli.output
    sign_in_session(client, make_user(role="admin"))
    page = post_form(client, "/admin/blokir", {"ip": "12.0.0.0/8", "reason": "daftar"}, page="/admin/blokir")
    assert page.status_code == 422 and "12.0.0.0/8 tidak dapat diblokir" in text_of(page)
    assert refused_count("guardsvc") - before == 3
    assert networks(app) == ["8.0.0.0/8", "9.0.0.0/8"]
    # What covers no public address costs nothing: private ranges, IPv6, devices, documentation ranges.
    for target in ("10.0.0.0/8", "2001:db8::/32", "192.0.2.0/24"):
        assert client.post("/api/admin/blocks", json={"ip": target}, headers=admin).status_code == 201, target


def test_lifting_and_expiry_give_the_coverage_back(app, client, bearer, make_block, two_slash8s, monkeypatch):
    _, admin = bearer("admin")
    first = make_block(network="8.0.0.0/8")
    make_block(network="9.0.0.0/8", minutes=30)
    assert client.post("/api/admin/blocks", json={"ip": "11.0.0.0/8"}, headers=admin).status_code == 422
    assert client.post(f"/api/admin/blocks/{first}/lift", json={"reason": "salah"},
                       headers=admin).status_code == 200
    assert client.post("/api/admin/blocks", json={"ip": "11.0.0.0/8"}, headers=admin).status_code == 201
    assert client.post("/api/admin/blocks", json={"ip": "12.0.0.0/8"}, headers=admin).status_code == 422
    later = clock.utcnow() + timedelta(minutes=91)  # the 30-minute block's hour has ended
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    assert client.post("/api/admin/blocks", json={"ip": "12.0.0.0/8"}, headers=admin).status_code == 201


def test_crowdsec_decisions_of_one_list_are_refused_together_counted_and_logged(app, ctx, client, caplog):
    before = refused_count("crowdsec")
    lists = [{"id": 1000 + n, "value": value, "scope": "Range", "duration": "24h0m0s", "type": "ban",
              "origin": "lists", "scenario": "dunia"} for n, value in enumerate(WORLD)]
    own = {"id": 7, "value": "8.8.4.4", "scope": "Ip", "duration": "4h0m0s", "type": "ban", "origin": "crowdsec",
           "scenario": "crowdsecurity/ssh-bf"}
    with caplog.at_level(logging.WARNING, logger="guardsvc.crowdsec"):
        created, _ = source.apply_decisions(lists + [own], [])
    db.session.commit()
    assert [block.network for block in created] == ["8.8.4.4/32"]  # another list of the same pull goes in
    assert refused_count("crowdsec") - before == len(WORLD) == 255
    warnings = [record.getMessage() for record in caplog.records if "not imported" in record.getMessage()]
    assert len(warnings) == 255 and "decision 1001 on 1.0.0.0/8 not imported" in warnings[1]
    assert "GUARDSVC_MAX_COVERAGE: 5%" in warnings[0]
    for ip in ("8.8.8.8", "1.1.1.1"):
        assert passes_forward_auth(client, ip), ip
    # The next pull brings the same list again: refused again, and a complete pull lifts nothing of it.
    assert source.apply_decisions(lists + [own], [], complete=True) == ([], [])


def test_a_list_already_imported_is_not_counted_again_by_a_complete_pull(app, ctx, monkeypatch):
    monkeypatch.setitem(app.config, "MAX_COVERAGE", 0.01)
    two = [{"id": n, "value": f"{n}.0.0.0/8", "scope": "Range", "duration": "24h0m0s", "type": "ban",
            "origin": "lists", "scenario": "dua"} for n in (8, 9)]
    created, _ = source.apply_decisions(two, [])
    db.session.commit()
    assert len(created) == 2
    assert source.apply_decisions(two, [], complete=True) == ([], [])  # listed: kept, not refused, not lifted
    assert db.session.scalar(select(db.func.count()).select_from(Block).where(Block.lifted_at.is_(None))) == 2


def test_the_coverage_command_and_a_recount_after_blocks_written_by_hand(app, runner, make_block):
    make_block(network="8.0.0.0/8")
    with app.app_context():
        db.session.execute(text("INSERT INTO blocks (reference, network, created_at, device_issued, self_release) "
                                "VALUES ('BLK-0000C0DE', '9.0.0.0/8', CURRENT_TIMESTAMP, false, false)"))
        db.session.commit()
    shown = runner.invoke(args=["blocks", "coverage"])
    assert shown.exit_code == 0 and f"covered: {SLASH8} of 3702258432" in shown.output
    assert "cap: 185112921 (5.0000%" in shown.output
    recounted = runner.invoke(args=["blocks", "coverage", "--recount"])
    assert recounted.exit_code == 0 and f"covered: {2 * SLASH8} of" in recounted.output


@pytest.mark.parametrize("value,expected", [("5%", 0.05), ("0.5", 0.005), (" 100 % ", 1.0), ("none", None)])
def test_the_setting(monkeypatch, tmp_path, value, expected):
    from guardsvc.config import load_settings

    monkeypatch.setenv("GUARDSVC_MAX_COVERAGE", value)
    assert load_settings(tmp_path)["MAX_COVERAGE"] == expected


@pytest.mark.parametrize("value", ["0", "-1", "101%", "lima", "nan", "5%%"])
def test_a_setting_that_cannot_work_stops_the_start_naming_itself(monkeypatch, tmp_path, value):
    from guardsvc.config import SettingsError, load_settings

    monkeypatch.setenv("GUARDSVC_MAX_COVERAGE", value)
    with pytest.raises(SettingsError) as refused:
        load_settings(tmp_path)
    assert "GUARDSVC_MAX_COVERAGE" in str(refused.value)


@pytest.fixture(scope="module")
def one_slash8_server(app):
    """Four workers and a cap of 0.5 %: one /8 (0.45 %) fits, two do not."""
    server = LiveServer(env={"GUARDSVC_MAX_COVERAGE": "0.5%"})
    yield server
    server.stop()


@pytest.mark.live
def test_writers_at_once_cannot_pass_the_cap_together(one_slash8_server, bearer):
    import requests

    # One token each: a token's own row (its last use) would otherwise queue the requests one behind the other.
    admins = [bearer("admin")[1] for _ in range(8)]
    answers = all_at_once(8, lambda i: requests.post(f"{one_slash8_server.url}/api/admin/blocks",
                                                     json={"ip": f"{20 + i}.0.0.0/8"}, headers=admins[i],
                                                     timeout=60))
    assert sorted(answer.status_code for answer in answers) == [201] + [422] * 7
