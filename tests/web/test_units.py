"""Unit tests of the small pure pieces: identity parsing, codes, schemas, user agents, networks."""
import pytest

from guardsvc.storage import clock, codes
from guardsvc.appeals.schemas import TicketSubmitSchema
from guardsvc.blocks.service import candidate_networks, canonical_network
from guardsvc.web.errors import ValidationFailed
from guardsvc.web.identity import is_valid_device_id, normalize_ip
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.web.useragent import describe_user_agent


@pytest.mark.parametrize("raw,expected", [
    ("203.0.113.7", "203.0.113.7"), (" 203.0.113.7 ", "203.0.113.7"),
    ("::ffff:203.0.113.7", "203.0.113.7"), ("2001:DB8::1", "2001:db8::1"), ("fe80::1%eth0", "fe80::1"),
])
def test_normalize_ip(raw, expected):
    assert normalize_ip(raw) == expected


@pytest.mark.parametrize("raw", ["", "256.1.1.1", "1.2.3", "example.com", "1.2.3.4/24", None])
def test_normalize_ip_refuses_non_addresses(raw):
    with pytest.raises(ValueError):
        normalize_ip(raw)


@pytest.mark.parametrize("value,valid", [
    ("6f1c2a9e-1111-4c2b-9d7e-0a1b2c3d4e5f", True), ("a", True), ("a.b_c:d-e", True), ("x" * 64, True),
    ("", False), ("x" * 65, False), ("a b", False), ("a/b", False), ("é", False), ("a\n", False),
])
def test_device_id_format(value, valid):
    assert is_valid_device_id(value) is valid


def test_codes_are_random_upper_hex_and_parse_leniently():
    numbers = {codes.new_code("TKT") for _ in range(200)}
    assert len(numbers) == 200
    assert all(codes.parse_code("TKT", n) == n for n in numbers)
    assert codes.parse_code("TKT", "  tkt-0a1b2c3d ") == "TKT-0A1B2C3D"
    assert codes.parse_code("TKT", "BLK-0A1B2C3D") is None
    assert codes.parse_code("TKT", "TKT-0A1B2C3") is None
    assert codes.parse_code("TKT", 123) is None


def test_isoformat_always_has_six_fraction_digits():
    from datetime import datetime, timedelta, timezone

    assert clock.isoformat(datetime(2026, 11, 22, 8, 50)) == "2026-11-22T08:50:00.000000Z"
    aware = datetime(2026, 11, 22, 15, 50, 0, 123456, tzinfo=timezone(timedelta(hours=7)))
    assert clock.isoformat(aware) == "2026-11-22T08:50:00.123456Z"
    assert clock.isoformat(None) is None


def test_submit_schema_trims_and_drops_unknown_fields():
    data = TicketSubmitSchema().load({"name": " Ani ", "email": " ani@example.com ", "reason": " Tolong ",
                                      "phone": "  ", "status": "approved", "id": 5})
    assert data == {"name": "Ani", "email": "ani@example.com", "reason": "Tolong", "phone": None}


def test_submit_schema_errors_are_indonesian_lists():
    with pytest.raises(ValidationFailed) as caught:
        load_or_raise(TicketSubmitSchema(), {"name": ["x"], "email": None, "reason": "\x07"})
    assert caught.value.errors == {"name": ["Harus berupa teks."], "email": ["Wajib diisi."],
                                   "reason": ["Mengandung karakter yang tidak diizinkan."]}


@pytest.mark.parametrize("agent,expected", [
    ("Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/126.0 Safari/537.36 Edg/126.0", "Edge di Windows"),
    ("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36", "Chrome di Android"),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15",
     "Safari di macOS"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 "
     "Mobile/15E148 Safari/604.1", "Safari di iOS"),
    ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 SamsungBrowser/23.0 "
     "Chrome/115.0 Mobile Safari/537.36", "Samsung Internet di Android"),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox di Linux"),
    ("Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 Chrome/126.0 Safari/537.36",
     "Chrome di ChromeOS"),
    ("python-requests/2.31", "Python"),
    ("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Version/4.0 Mobile Safari/537.36", "Android"),
    ("curl/8.5.0", "curl"), ("", None), ("zzz", None), ("x" * 10000, None),
])
def test_describe_user_agent(agent, expected):
    assert describe_user_agent(agent) == expected


def test_candidate_networks_cover_every_prefix():
    v4 = candidate_networks("203.0.113.7")
    assert len(v4) == 33 and v4[0] == "203.0.113.7/32" and v4[-1] == "0.0.0.0/0"
    assert "203.0.113.0/24" in v4
    v6 = candidate_networks("2001:db8::1")
    assert len(v6) == 129 and "2001:db8::/32" in v6


@pytest.mark.parametrize("raw,expected", [
    ("203.0.113.7", "203.0.113.7/32"), ("10.0.0.0/8", "10.0.0.0/8"), ("2001:db8::/32", "2001:db8::/32"),
    ("::ffff:203.0.113.0/120", "203.0.113.0/24"),
])
def test_canonical_network(raw, expected):
    assert canonical_network(raw) == expected


def test_canonical_network_refuses_host_bits():
    with pytest.raises(ValueError):
        canonical_network("10.0.0.1/8")


def test_settings_and_messages_are_each_defined_once():
    """A setting or a message written twice silently keeps the last value; neither file allows it."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "guardsvc"
    settings = [key.value for node in ast.walk(ast.parse((package / "config.py").read_text()))
                if isinstance(node, ast.Dict) for key in node.keys if isinstance(key, ast.Constant)]
    names = [target.id for node in ast.parse((package / "messages.py").read_text()).body
             if isinstance(node, ast.Assign) for target in node.targets]
    assert [key for key in settings if settings.count(key) > 1] == []
    assert [name for name in names if names.count(name) > 1] == []


def test_per_address_limits_count_an_ipv6_client_by_its_64():
    from guardsvc.web.addresses import counted_address

    assert counted_address("2001:db8:1:2:aaaa::1") == counted_address("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert counted_address("2001:db8:1:3::1") != counted_address("2001:db8:1:2::1")
    assert counted_address("203.0.113.7") == "203.0.113.7"
