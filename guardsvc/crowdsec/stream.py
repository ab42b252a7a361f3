"""The decision stream and the decision query of CrowdSec's LAPI, over guardsvc's address blocks.

``startup=true`` (and a bouncer's first pull) sends every active decision,
written out as the rows are read. Later pulls look only at the blocks that
may have changed for the bouncer since its last pull: the blocks logged in
``edge_changes`` after its cursor (created, lifted, expiry changed), the
blocks whose expiry fell in between, and the blocks around or inside an allow
entry that came, went or expired in between. For those it compares what is
active now with what the bouncer holds (``SentDecision`` for a block cut into
pieces, else the block's one decision when the cursor saw the block) and
sends the difference. So a pull costs what changed, not the size of the list.
"""
import ipaddress
import json

from sqlalchemy import delete, insert, select, update

from guardsvc.blocks.allows import active_network_allow_entries, network_allows_changed_between
from guardsvc.blocks.edge import MAX_DELTA, changed_blocks, first_logged, snapshot_cursor
from guardsvc.blocks.exported import (address_blocks, address_targets, all_address_blocks, blocks_by_id,
                                      blocks_meeting, expired_between)
from guardsvc.blocks.networks import display_target, is_single_address
from guardsvc.crowdsec.decisions import (BAN, FOREVER, IP_SCOPE, ORIGIN, RANGE_SCOPE, SCENARIO_PREFIX,
                                         block_decisions, decision_json, go_duration)
from guardsvc.crowdsec.models import Bouncer, SentDecision
from guardsvc.extensions import db
from guardsvc.storage import clock

CHUNK_DECISIONS = 2_000  # decisions a chunk of the answer: not one socket write each

def _whole(block_id, reference, network):
    """The one decision of a block sent whole: ``(id, scope, value, scenario)``, with no address parsing."""
    scope = IP_SCOPE if is_single_address(network) else RANGE_SCOPE
    return block_id, scope, display_target(network), SCENARIO_PREFIX + reference


def _remaining(expires_at, now):
    return FOREVER if expires_at is None else expires_at - now


def _decisions_by_block(ids=None, containing=None):
    """``{block id: [(decision id, scope, value, scenario, remaining)]}`` of the active address blocks."""
    now = clock.utcnow()
    return {row.id: [(*decision, _remaining(row.expires_at, now))
                     for decision in block_decisions(row.id, row.reference, network, holes)]
            for row, network, holes in address_blocks(containing=containing, ids=ids)}


def _ended_json(gone):
    """Deleted decisions: their remaining time is how long ago their block ended (0s when it still runs)."""
    now = clock.utcnow()
    ends = blocks_by_id({block_id for block_id, _ in gone})
    result = []
    for block_id, (decision_id, scope, value, scenario) in gone:
        lifted_at, expires_at = ends.get(block_id, (None, None))
        ended = min((moment for moment in (lifted_at, expires_at) if moment is not None and moment <= now),
                    default=now)
        result.append(decision_json(decision_id, scope, value, scenario, ended - now))
    return result


def _piece_rows(bouncer_id, decisions_by_block):
    """SentDecision rows for the blocks not sent whole (pieces, or a marker when nothing is sent)."""
    rows = []
    for block_id, decisions in decisions_by_block.items():
        if len(decisions) == 1 and decisions[0][0] == block_id:
            continue
        rows.extend({"bouncer_id": bouncer_id, "decision_id": decision_id, "block_id": block_id, "scope": scope,
                     "value": value, "scenario": scenario} for decision_id, scope, value, scenario, _ in decisions)
        if not decisions:
            rows.append({"bouncer_id": bouncer_id, "decision_id": -block_id, "block_id": block_id, "scope": "",
                         "value": "", "scenario": ""})
    return rows


def _startup(bouncer_id):
    """``(cursor, decisions)``: every active decision, lazily, with the bouncer's piece rows written now.

    Only the blocks that meet an active allow entry can be cut into pieces; they
    are found by their networks first. Every other block is one decision,
    formatted from its row as it is read.
    """
    cursor = snapshot_cursor()
    allowed = {entry.network for entry in active_network_allow_entries()}
    special = _decisions_by_block(ids=blocks_meeting(allowed)) if allowed else {}
    db.session.execute(delete(SentDecision).where(SentDecision.bouncer_id == bouncer_id))
    rows = _piece_rows(bouncer_id, special)
    if rows:
        db.session.execute(insert(SentDecision), rows)

    def decisions():
        now = clock.utcnow()
        for block_id, reference, network, expires_at in all_address_blocks():
            if block_id in special:
                yield from special[block_id]
                continue
            single = network.endswith("/128") or (network.endswith("/32") and ":" not in network)
            yield (block_id, IP_SCOPE if single else RANGE_SCOPE, network.rpartition("/")[0] if single else network,
                   SCENARIO_PREFIX + reference, FOREVER if expires_at is None else expires_at - now)
    return cursor, decisions()


def _held(bouncer_id, targets, cursor):
    """``{block id: {decision id: (scope, value, scenario)}}``: what the bouncer holds of these blocks."""
    held = {block_id: {} for block_id in targets}
    marked = set()
    ids = sorted(targets)
    for start in range(0, len(ids), 2_000):
        for row in db.session.execute(select(SentDecision).where(
                SentDecision.bouncer_id == bouncer_id, SentDecision.block_id.in_(ids[start:start + 2_000]))).scalars():
            marked.add(row.block_id)
            if row.decision_id >= 0:
                held[row.block_id][row.decision_id] = (row.scope, row.value, row.scenario)
    first = first_logged(set(targets) - marked)
    for block_id, (reference, network) in targets.items():
        # Sent whole at an earlier pull when the cursor already covered its creation (or it is older than the log).
        if block_id not in marked and first.get(block_id, 0) <= cursor:
            decision_id, *rest = _whole(block_id, reference, network)
            held[block_id][decision_id] = tuple(rest)
    return held


def _delta(bouncer, cursor, since):
    """``(cursor, new decisions, gone decisions)`` for the blocks that may have changed since the last pull.

    None when the log of changes no longer reaches the cursor; ``(None, None, gone)`` when so many
    changed that everything active is better sent again.
    """
    now = clock.utcnow()
    changed = changed_blocks(cursor)
    if changed is None:
        return None  # the log no longer reaches the cursor: everything again
    new_cursor, affected = changed
    if since is not None:
        affected |= expired_between(since, now)
        affected |= blocks_meeting(network_allows_changed_between(since, now))
    if len(affected) > MAX_DELTA:
        # A list imported whole: everything active is written out as at startup (a bouncer takes a
        # decision it holds again as it is), and only the ended blocks are weighed one by one.
        ended = address_targets(affected, ended=True)
        held = _held(bouncer.id, ended, cursor)
        return None, None, [(block_id, (decision_id, *value)) for block_id in sorted(ended)
                            for decision_id, value in held[block_id].items()]
    targets = address_targets(affected)
    if not targets:
        return new_cursor, [], []
    current = _decisions_by_block(ids=targets)
    held = _held(bouncer.id, targets, cursor)
    new, gone = [], []
    for block_id in sorted(targets):
        now_sent = {decision[0]: decision for decision in current.get(block_id, [])}
        new.extend(decision for decision_id, decision in now_sent.items() if decision_id not in held[block_id])
        gone.extend((block_id, (decision_id, *value)) for decision_id, value in held[block_id].items()
                    if decision_id not in now_sent)
    ids = sorted(targets)
    for start in range(0, len(ids), 2_000):
        db.session.execute(delete(SentDecision).where(SentDecision.bouncer_id == bouncer.id,
                                                      SentDecision.block_id.in_(ids[start:start + 2_000])))
    rows = _piece_rows(bouncer.id, {block_id: current.get(block_id, []) for block_id in targets})
    if rows:
        db.session.execute(insert(SentDecision), rows)
    return new_cursor, new, gone


def pull_stream(bouncer, startup):
    """``(new decisions, deleted decisions)`` for this bouncer as JSON-ready iterables, its cursor moved on.

    ``new`` may be a generator (the whole list is written out as it is read); ``deleted`` is a list.
    The pull starts by writing the bouncer's row: that locks the row on
    PostgreSQL and takes the write lock on SQLite, so two pulls with one key
    (two workers) take turns and neither loses the other's changes.
    """
    db.session.execute(update(Bouncer).where(Bouncer.id == bouncer.id).values(cursor=Bouncer.cursor)
                       .execution_options(synchronize_session=False))
    cursor, since = db.session.execute(select(Bouncer.cursor, Bouncer.last_pull_at)
                                       .where(Bouncer.id == bouncer.id)).one()
    delta = None if startup or cursor is None else _delta(bouncer, cursor, since)
    if delta is None or delta[1] is None:
        deleted = _ended_json(delta[2]) if delta else []
        new_cursor, new = _startup(bouncer.id)
    else:
        new_cursor, new, gone = delta
        deleted = _ended_json(gone)
    db.session.execute(update(Bouncer).where(Bouncer.id == bouncer.id)
                       .values(cursor=new_cursor, last_pull_at=clock.utcnow())
                       .execution_options(synchronize_session=False))
    return new, deleted


def stream_json(new, deleted):
    """The stream's answer as text chunks: ``{"new": [...] | null, "deleted": [...] | null}``.

    ``new`` holds ``(id, scope, value, scenario, remaining)`` tuples, written a few thousand to a
    chunk. CrowdSec's LAPI answers an empty list as null, and bouncers expect exactly that.
    """
    forever = go_duration(FOREVER)
    chunk, opened = ['{"new": '], False
    for decision_id, scope, value, scenario, remaining in new:
        duration = forever if remaining == FOREVER else go_duration(remaining)
        if _plain(value) and _plain(scenario):  # canonical networks and references: nothing to escape
            text = (f'{{"id": {decision_id}, "origin": "{ORIGIN}", "type": "{BAN}", "scope": "{scope}", '
                    f'"value": "{value}", "scenario": "{scenario}", "duration": "{duration}"}}')
        else:
            text = json.dumps(decision_json(decision_id, scope, value, scenario, remaining))
        chunk.append(("," if opened else "[") + text)
        opened = True
        if len(chunk) >= CHUNK_DECISIONS:
            yield "".join(chunk)
            chunk = []
    chunk.append("]" if opened else "null")
    chunk.append(', "deleted": ' + (json.dumps(deleted) if deleted else "null") + "}\n")
    yield "".join(chunk)


def _plain(text):
    """True when ``text`` needs no escaping inside a JSON string."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def query_decisions(ip=None, scope=None, value=None, decision_type=None):
    """The active decisions that cover ``ip`` (all without it), narrowed by scope, value, type; None when none.

    ``ip`` is a normalized address (an IPv4-mapped IPv6 address is its IPv4 one).
    """
    address = ipaddress.ip_address(ip) if ip else None
    result = []
    for decisions in _decisions_by_block(containing=ip).values():
        for decision_id, decision_scope, decision_value, scenario, remaining in decisions:
            if address is not None and address not in ipaddress.ip_network(decision_value):
                continue
            if scope and scope.lower() != decision_scope.lower():
                continue
            if value and value != decision_value:
                continue
            if decision_type and decision_type != BAN:
                continue
            result.append(decision_json(decision_id, decision_scope, decision_value, scenario, remaining))
    return result or None
