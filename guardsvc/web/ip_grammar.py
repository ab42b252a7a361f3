"""IP addresses and networks as the service reads them, written once as regular expressions.

What Python's ``ipaddress`` accepts, as patterns the API document gives every address field, so
that a client generated from the document accepts and refuses the text the service does. Built
from parts here; ``tests/web/test_ip_grammar.py`` holds them to the parsers (``normalize_ip``,
``blocks.networks.parse_network`` and the fields) on generated and hand-picked text, so the two
cannot drift apart.

- IPv4: four decimal octets, no leading zeros (``010.0.0.1`` is refused, as ``ipaddress`` does).
- IPv6: RFC 4291 text, 1-4 hex digits a group (leading zeros allowed), either case, one ``::``
  standing for at least one group, the last 32 bits optionally a dotted quad (RFC 3986's grammar).
- A network: an address alone, or ``/`` and a prefix length (ASCII digits, leading zeros allowed,
  at most 32 or 128), for IPv4 also a netmask or a hostmask in dotted form.

One rule of the parser is left to it and said in words: a range has no host bits (``10.0.0.1/24``
is refused). A pattern that says it exists - every prefix length against every ``::`` placement
and dotted-quad ending - but ran to about 67,000 characters, and a generator of test data builds a
pattern into a strategy anew for each request: schemathesis took about 3 s a request with it,
milliseconds with these.

The patterns use only what JSON Schema's (ECMA-262), Python's and Rust's regular expressions read
alike: literals, character classes, ``(?:...)`` groups, alternation and counted repetition; no
``\\d`` or ``\\s`` (Unicode-wide in Python) and no lookaround (a generator cannot draw from it).
"""
import re

# Python's str.strip() removes these (str.isspace); the document's patterns name them one by one.
# Unicode has none past U+3000 (ideographic space): looking no further keeps every process's start
# from testing 1.1 million code points (a fifth of a second). tests/web/test_ip_grammar.py looks at all.
WHITESPACE_BELOW = 0x3001
WHITESPACE = "".join(chr(code) for code in range(WHITESPACE_BELOW) if chr(code).isspace())
# Among them, those that are no control characters (text fields refuse control characters).
PLAIN_WHITESPACE = "".join(char for char in WHITESPACE if not (ord(char) < 0x20 or ord(char) == 0x7F))
CONTROL = "\\x00-\\x1f\\x7f"
H = "[0-9A-Fa-f]{1,4}"  # an IPv6 group


def _class(characters):
    """A character class (or the character) of ``characters``, ranges joined."""
    codes = sorted({ord(char) for char in characters})
    if len(codes) == 1:
        return re.escape(chr(codes[0]))
    return f"[{_ranges(codes)}]"


def _ranges(codes):
    """The inside of a character class of the sorted character ``codes``, runs of three or more as ranges."""
    parts, start = [], codes[0]
    for previous, code in zip(codes, codes[1:] + [None]):
        if code != previous + 1:
            parts.append(_escape_in_class(start) + ("" if previous == start else
                                                   ("" if previous == start + 1 else "-") + _escape_in_class(previous)))
            start = code
    return "".join(parts)


def class_of(characters):
    """The inside of a character class of ``characters`` (``[...]`` around it is the caller's)."""
    return _ranges(sorted({ord(char) for char in characters}))


def _escape_in_class(code):
    """One character inside a class: control characters as ``\\xNN``, class syntax escaped."""
    char = chr(code)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return "\\" + char if char in "\\]^-[" else char


def _words(words):
    """A pattern matching exactly ``words``, as a compact trie."""
    trie = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie(trie)


def _trie(node):
    endings = {}
    for char, child in sorted(node.items()):
        if char:
            endings.setdefault(_trie(child), []).append(char)
    parts = [_class(chars) + suffix for suffix, chars in endings.items()]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    if "" not in node:
        return body
    single = len(parts) > 1 or "" in endings  # a group already, or one character or class
    return body + "?" if single else f"(?:{body})?"


def _any_of(parts):
    return "(?:" + "|".join(parts) + ")"


def _prefix_length(maximum):
    """A prefix length from 0 to ``maximum``, as ASCII digits with any leading zeros."""
    return "0*" + _words(str(value) for value in range(maximum + 1))


def _mask(prefix):
    return ".".join(str(((0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF) >> shift & 0xFF) for shift in (24, 16, 8, 0))


def _ipv4_masks():
    """Every IPv4 netmask (``255.255.0.0``) and hostmask (``0.0.255.255``)."""
    masks = {_mask(prefix) for prefix in range(33)}
    masks |= {".".join(str(255 - int(octet)) for octet in _mask(prefix).split(".")) for prefix in range(33)}
    return _words(sorted(masks))


OCTET = _words(str(value) for value in range(256))
IPV4 = f"{OCTET}(?:\\.{OCTET}){{3}}"
# RFC 3986's IPv6address: the forms that end with the last 32 bits (two groups, or a dotted quad),
# then those that end earlier.
IPV6 = _any_of([
    _any_of([f"(?:{H}:){{6}}", f"::(?:{H}:){{5}}", f"(?:{H})?::(?:{H}:){{4}}"]
            + [f"(?:(?:{H}:){{0,{most}}}{H})?::" + (f"(?:{H}:){{{4 - most}}}" if most < 4 else "")
               for most in range(1, 5)]) + _any_of([f"{H}:{H}", IPV4]),
    f"(?:(?:{H}:){{0,5}}{H})?::{H}",
    f"(?:(?:{H}:){{0,6}}{H})?::",
])
ADDRESS = _any_of([IPV4, IPV6])
NETWORK = _any_of([f"{IPV4}(?:/(?:{_prefix_length(32)}|{_ipv4_masks()}))?", f"{IPV6}(?:/{_prefix_length(128)})?"])
# After an address, a zone id (``%eth0``) that the reader of an address drops: text without
# control characters.
ZONE = f"(?:%[^{CONTROL}]*)?"


def text_pattern(core, *, spaces=PLAIN_WHITESPACE, then="", blank=False):
    """The anchored pattern of a field holding ``core`` (then ``then``) with ``spaces`` around it (what
    trimming removes), or, with ``blank``, only ``spaces`` (read as no value)."""
    around = f"[{class_of(spaces)}]*" if spaces else ""
    forms = [around + core + then + around] + ([around] if blank else [])
    return "^" + _any_of(forms) + "$"
