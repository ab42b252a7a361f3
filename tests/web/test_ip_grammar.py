"""The API document's address grammar (guardsvc.web.ip_grammar) reads what the service's parsers read.

Held against ``ipaddress`` (what ``normalize_ip`` and ``blocks.networks.parse_network`` use) and the
fields themselves, on hand-picked text and on text drawn by hypothesis: addresses and networks of
random value written every way the parsers take (compressed anywhere, leading zeros, either case,
a dotted quad at the end, padded prefixes, netmasks and hostmasks), near misses of them, and text
drawn from the patterns themselves. A change to either side that the other does not follow fails.
"""
import base64
import ipaddress
import re

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from marshmallow import ValidationError

from guardsvc.blocks.schemas import IpOrNetwork
from guardsvc.web import ip_grammar
from guardsvc.web.schema_fields import BASE64, Base64, BaseSchema, DeviceId, IpAddress

ADDRESS = re.compile(ip_grammar.ADDRESS)
NETWORK = re.compile(ip_grammar.NETWORK)
pytestmark = pytest.mark.database_agnostic  # no database at all
SETTINGS = settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_whitespace_named_is_every_character_python_strips():
    everywhere = "".join(chr(code) for code in range(0x110000) if chr(code).isspace())
    assert ip_grammar.WHITESPACE == everywhere and max(map(ord, everywhere)) < ip_grammar.WHITESPACE_BELOW


def parses_as_address(text):
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return "%" not in text  # a zone id is the field's to drop, not the grammar's


def parses_as_network(text):
    """What ``parse_network`` reads, host bits aside (the document says that rule in words)."""
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return "%" not in text


def has_host_bits(text):
    network = ipaddress.ip_network(text.strip(), strict=False)
    return str(network.network_address) != str(ipaddress.ip_address(text.strip().split("/")[0]))


# Text of addresses and networks, written every way the parsers take ------------------------------

@st.composite
def ipv6_text(draw, value):
    groups = [(value >> (112 - 16 * index)) & 0xFFFF for index in range(8)]
    quad = draw(st.booleans())
    count = 6 if quad else 8
    parts = [draw(st.sampled_from([f"{group:x}", f"{group:X}", f"{group:04x}", f"{group:0{len(f'{group:x}') + 1}x}"[-4:]]))
             for group in groups[:count]]
    if quad:
        parts.append(".".join(str((value >> shift) & 255) for shift in (24, 16, 8, 0)))
    runs = [(start, end) for start in range(count) for end in range(start + 1, count + 1)
            if all(groups[index] == 0 for index in range(start, end))]
    if runs and draw(st.booleans()):
        start, end = draw(st.sampled_from(runs))
        return ":".join(parts[:start]) + "::" + ":".join(parts[end:])
    return ":".join(parts)


@st.composite
def network_text(draw):
    """An address alone or with a prefix, of either version, host bits zero or not."""
    version = draw(st.sampled_from([4, 6]))
    bits = 32 if version == 4 else 128
    prefix = draw(st.integers(0, bits))
    value = draw(st.integers(0, 2 ** bits - 1) | st.sampled_from([0, 1, 2 ** bits - 1]))
    if draw(st.booleans()):  # no host bits
        value &= ~((1 << (bits - prefix)) - 1) & (2 ** bits - 1)
    text = str(ipaddress.IPv4Address(value)) if version == 4 else draw(ipv6_text(value))
    form = draw(st.sampled_from(["alone", "length", "padded", "netmask", "hostmask"]))
    if form == "alone":
        return text
    if form == "padded" or (version == 6 and form in ("netmask", "hostmask")):
        return f"{text}/{'0' * draw(st.integers(1, 3))}{prefix}"
    if form == "length":
        return f"{text}/{prefix}"
    mask = (2 ** 32 - 1) ^ ((1 << (32 - prefix)) - 1)
    return f"{text}/{ipaddress.IPv4Address(mask if form == 'netmask' else mask ^ (2 ** 32 - 1))}"


@st.composite
def near_miss(draw, texts):
    """Text a few keystrokes away from a real address or network."""
    text = list(draw(texts))
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(text)))
        character = draw(st.sampled_from(list("0123456789abcdefABCDEFg:./%") + [" ", "٣"]))
        operation = draw(st.sampled_from(["insert", "replace", "delete"]))
        if operation == "insert" or not text:
            text.insert(index, character)
        elif operation == "replace":
            text[min(index, len(text) - 1)] = character
        else:
            del text[min(index, len(text) - 1)]
    return "".join(text)


ANY_TEXT = network_text() | near_miss(network_text()) | st.text(alphabet="0123456789abcdefABCDEF:./%", max_size=45)

HAND_PICKED = [
    "0.0.0.0", "255.255.255.255", "256.0.0.1", "010.0.0.1", "1.2.3", "1.2.3.4.5", "1.2.3.4 ", "١.2.3.4",
    "::", ":::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1::2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9", "12345::", "::ffff:10.0.0.1", "::ffff:010.0.0.1", "1:2:3:4:5:6:1.2.3.4",
    "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3.4:5", "fe80::1%eth0", "FE80::ABCD", "0000:0000::0001",
    "10.0.0.0/8", "10.0.0.1/8", "10.0.0.0/08", "10.0.0.0/0008", "10.0.0.0/33", "10.0.0.0/-8", "10.0.0.0/+8",
    "10.0.0.0/255.0.0.0", "10.0.0.0/0.255.255.255", "10.0.0.0/255.0.255.0", "10.0.0.0/", "10.0.0.0//8",
    "2001:db8::/32", "2001:db8::/129", "2001:db8::/0128", "2001:db8::/ffff::", "::/0", "fe80::%eth0/64",
    "::ffff:10.0.0.0/104", "0.0.0.0/0", "0.0.0.0/255.255.255.255", "1.2.3.4/0.0.0.0",
]


@pytest.mark.parametrize("text", HAND_PICKED)
def test_hand_picked_text(text):
    assert bool(ADDRESS.fullmatch(text)) == parses_as_address(text), text
    assert bool(NETWORK.fullmatch(text)) == parses_as_network(text), text


@SETTINGS
@given(ANY_TEXT)
def test_the_grammar_reads_what_ipaddress_reads(text):
    assert bool(NETWORK.fullmatch(text)) == parses_as_network(text), text
    if "/" not in text:
        assert bool(ADDRESS.fullmatch(text)) == parses_as_address(text), text


@SETTINGS
@given(st.from_regex(NETWORK, fullmatch=True))
def test_what_the_network_grammar_spells_parses(text):
    assert parses_as_network(text), text


@SETTINGS
@given(st.from_regex(ADDRESS, fullmatch=True))
def test_what_the_address_grammar_spells_parses(text):
    assert parses_as_address(text), text


# The fields: their documented pattern against their own reading ---------------------------------

SPACES = st.text(alphabet=ip_grammar.WHITESPACE + "\x00\x7f", max_size=3)
ZONES = st.just("") | st.text(max_size=5).map("%".__add__)


@st.composite
def field_text(draw, cores):
    return draw(SPACES) + draw(cores) + draw(ZONES) + draw(SPACES)


def loads(field, text):
    schema = BaseSchema.from_dict({"value": field})()
    try:
        schema.load({"value": text})
    except ValidationError:
        return False
    return True


def said(pattern, text):
    """Whether ``pattern`` matches ``text`` as JSON Schema reads it: ``$`` is the end (in Python it may
    also match before a final newline)."""
    return bool(re.search(re.sub(r"\$$", r"\\Z", pattern), text))


def documented(field, text):
    """What the API document says of ``text`` for ``field``: its pattern, and a length within 64."""
    return len(text) <= 64 and said(field.json_schema()["pattern"], text)


def optional(field_class):
    return field_class(load_default=None, allow_none=True, max_length=64, blank_as_none=True)


@SETTINGS
@given(field_text(ANY_TEXT), st.booleans())
@example("\t1.2.3.4%eth0 ", False)
@example(" " * 65 + "1.2.3.4", False)
@example("", True)
def test_an_address_field_takes_exactly_what_its_pattern_says(text, required):
    field = IpAddress(required=True, max_length=64) if required else optional(IpAddress)
    assert loads(field, text) == documented(field, text), text


@SETTINGS
@given(field_text(ANY_TEXT))
@example("\u3000 2001:db8::/32 ")
@example("\t10.0.0.0/8")
@example("10.0.0.0/8%eth0")
def test_a_network_field_takes_what_its_pattern_says_but_host_bits(text):
    field = optional(IpOrNetwork)
    if documented(field, text) and text.strip(ip_grammar.PLAIN_WHITESPACE) and has_host_bits(text):
        assert not loads(field, text), text  # the rule the document says in words
    else:
        assert loads(field, text) == documented(field, text), text


@SETTINGS
@given(st.text(alphabet="abcXYZ09._:-" + ip_grammar.WHITESPACE, max_size=70), st.booleans())
def test_a_device_field_takes_exactly_what_its_pattern_says(text, required):
    field = DeviceId(required=required, **({} if required else {"load_default": None, "allow_none": True,
                                                                  "blank_as_none": True}))
    assert loads(field, text) == said(field.json_schema()["pattern"], text), text


@SETTINGS
@given(st.binary(max_size=30).map(lambda raw: base64.b64encode(raw).decode()) | st.text(max_size=12))
@example("YWJjZA")
@example(" YWJj")
@example("\n")
def test_a_base64_field_takes_exactly_what_its_pattern_says(text):
    field = Base64(required=True, max_length=8000, error="tidak terbaca")
    schema = field.json_schema()
    assert schema["pattern"] == f"^{BASE64}$" and schema["minLength"] == 1
    assert loads(field, text) == (len(text) >= 1 and said(schema["pattern"], text)), text
