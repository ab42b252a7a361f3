"""Pure parts of the decision stream: Go durations, a range minus allowed addresses, stable ids.

A decision's id is derived from its block, so every bouncer and every worker
names the same decision alike, with nothing stored:

- a block sent whole (an IP, or a range with no allowed address inside) is
  ``block.id``;
- a range that allow entries split is sent as pieces, and a piece's id is
  ``block.id << 31 | h`` where ``h`` is 31 bits of a BLAKE2b hash of the
  piece's CIDR text. The id stays the same while the piece does; when an allow
  entry comes or goes, the pieces that change get new ids (their old ids are
  sent as deleted), the ones that stay keep theirs. Piece ids are at least
  2**31, whole-block ids below it (block ids stay below 2**31, piece ids below
  2**62), so the two never meet.
"""
import hashlib
import ipaddress
import re
from datetime import timedelta

ORIGIN = "guardsvc"
SCENARIO_PREFIX = "guardsvc/"
BAN = "ban"
IP_SCOPE, RANGE_SCOPE = "Ip", "Range"
# A block without expiry is sent with this much left: ten years, which every bouncer parses
# (Go's durations end near 292 years) and whose seconds still fit a 32-bit counter.
FOREVER = timedelta(days=3650)
PIECE_SHIFT = 31

_SECOND = 10 ** 9
_SMALL_UNITS = (("ms", 10 ** 6, 6), ("\u00b5s", 10 ** 3, 3), ("ns", 1, 0))


def _decimal(whole, fraction, digits):
    """``whole`` and a ``digits``-long ``fraction`` as Go prints them: trailing zeros dropped."""
    if not digits or not fraction:
        return str(whole)
    return f"{whole}.{fraction:0{digits}d}".rstrip("0")


def go_duration(delta):
    """A timedelta as Go's ``time.Duration.String()``: ``3h59m58.123s``, ``1m0s``, ``-2.5s``, ``0s``."""
    nanoseconds = ((delta.days * 86400 + delta.seconds) * 10 ** 6 + delta.microseconds) * 1000
    sign = "-" if nanoseconds < 0 else ""
    nanoseconds = abs(nanoseconds)
    if nanoseconds == 0:
        return "0s"
    if nanoseconds < _SECOND:
        unit, size, digits = next(unit for unit in _SMALL_UNITS if nanoseconds >= unit[1])
        return sign + _decimal(nanoseconds // size, nanoseconds % size, digits) + unit
    seconds, fraction = divmod(nanoseconds, _SECOND)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    text = _decimal(seconds, fraction, 9) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    return f"{sign}{minutes}m{text}" if minutes else sign + text


_GO_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def parse_go_duration(text):
    """Go's ``time.ParseDuration`` as a timedelta (``"1h59m54.984131692s"``, ``"-19.3ms"``); ValueError else."""
    if not isinstance(text, str):
        raise ValueError("not a duration")
    sign, body = (-1, text[1:]) if text.startswith("-") else (1, text.removeprefix("+"))
    if body == "0":
        return timedelta(0)
    parts = _GO_PART.findall(body)
    if not parts or "".join(number + unit for number, unit in parts) != body:
        raise ValueError(f"not a Go duration: {text!r}")
    return sign * timedelta(seconds=sum(float(number) * _GO_UNITS[unit] for number, unit in parts))


def remaining_pieces(network, allowed):
    """``network`` minus the ``allowed`` networks: the fewest CIDR ranges that cover the rest.

    Two CIDR networks either nest or do not meet: an allowed network that holds
    all of ``network`` leaves nothing; one inside it is cut out
    (``address_exclude``); the rest play no part.
    """
    if not allowed:
        return [network]
    pieces = [network]
    for hole in allowed:
        if hole.version != network.version:
            continue
        if network.subnet_of(hole):
            return []
        if not hole.subnet_of(network):
            continue
        cut = []
        for piece in pieces:
            if hole.subnet_of(piece):
                cut.extend(piece.address_exclude(hole))
            elif not piece.subnet_of(hole):
                cut.append(piece)
        pieces = cut
    return list(ipaddress.collapse_addresses(pieces))


def piece_id(block_id, piece):
    """The stable decision id of one piece of a split range (see the module's note)."""
    digest = hashlib.blake2b(piece.with_prefixlen.encode("ascii"), digest_size=4).digest()
    return (block_id << PIECE_SHIFT) | (int.from_bytes(digest, "big") & ((1 << PIECE_SHIFT) - 1))


def scope_and_value(piece):
    """(``"Ip"``, ``"203.0.113.7"``) for one address, (``"Range"``, ``"10.0.0.0/8"``) for more."""
    if piece.prefixlen == piece.max_prefixlen:
        return IP_SCOPE, str(piece.network_address)
    return RANGE_SCOPE, piece.with_prefixlen


def block_decisions(block_id, reference, network, allowed):
    """``[(decision id, scope, value, scenario)]`` for one block on ``network`` (an ip_network)."""
    pieces = remaining_pieces(network, allowed)
    scenario = SCENARIO_PREFIX + reference
    if pieces == [network]:
        return [(block_id, *scope_and_value(network), scenario)]
    return [(piece_id(block_id, piece), *scope_and_value(piece), scenario) for piece in pieces]


def decision_json(decision_id, scope, value, scenario, remaining):
    """One decision as CrowdSec's LAPI answers it (``models.Decision``)."""
    return {"id": decision_id, "origin": ORIGIN, "type": BAN, "scope": scope, "value": value,
            "scenario": scenario, "duration": go_duration(remaining)}
