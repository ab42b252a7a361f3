"""The decision stream and the decision query of CrowdSec's LAPI, over guardsvc's address blocks.

Per bouncer, the set of decisions it holds (``SentDecision``) is the cursor:
``startup=true`` sends every active decision, later pulls send only what became
active (a new block, a piece of a range that an allow entry's change created)
and what stopped (lifted, expired, allowed, a piece replaced) since that
bouncer's last pull. Expiry needs no job: an expired block is simply no longer
active at the next pull, so it is sent as deleted then.
"""
import ipaddress

from sqlalchemy import delete, insert, select, update

from guardsvc.blocks.exported import address_blocks, blocks_by_id
from guardsvc.crowdsec.decisions import BAN, FOREVER, block_decisions, decision_json
from guardsvc.crowdsec.models import Bouncer, SentDecision
from guardsvc.extensions import db
from guardsvc.storage import clock


def _active_decisions(containing=None):
    """``{decision id: (block id, scope, value, scenario, remaining)}`` active now."""
    now = clock.utcnow()
    active = {}
    for row, network, holes in address_blocks(containing):
        remaining = FOREVER if row.expires_at is None else row.expires_at - now
        for decision_id, scope, value, scenario in block_decisions(row.id, row.reference, network, holes):
            active[decision_id] = (row.id, scope, value, scenario, remaining)
    return active


def _ended_json(sent):
    """Deleted decisions: their remaining time is how long ago their block ended (0s when it still runs)."""
    now = clock.utcnow()
    ends = blocks_by_id({row.block_id for row in sent})
    result = []
    for row in sent:
        lifted_at, expires_at = ends.get(row.block_id, (None, None))
        ended = min((moment for moment in (lifted_at, expires_at) if moment is not None and moment <= now),
                    default=now)
        result.append(decision_json(row.decision_id, row.scope, row.value, row.scenario, ended - now))
    return result


def pull_stream(bouncer, startup):
    """``{"new": [...] | None, "deleted": [...] | None}`` for this bouncer, and its cursor moved on.

    The pull starts by writing the bouncer's row (its last pull time): that
    locks the row on PostgreSQL and takes the write lock on SQLite, so two
    pulls with one key (two workers) take turns and neither loses the other's
    changes.
    """
    db.session.execute(update(Bouncer).where(Bouncer.id == bouncer.id).values(last_pull_at=clock.utcnow())
                       .execution_options(synchronize_session=False))
    active = _active_decisions()
    sent = {row.decision_id: row for row in db.session.execute(
        select(SentDecision.decision_id, SentDecision.block_id, SentDecision.scope, SentDecision.value,
               SentDecision.scenario).where(SentDecision.bouncer_id == bouncer.id))}
    gone = [row for decision_id, row in sent.items() if decision_id not in active]
    fresh = {decision_id: value for decision_id, value in active.items() if decision_id not in sent}
    new = active if startup else fresh
    deleted = _ended_json(gone)
    if gone:
        db.session.execute(delete(SentDecision).where(
            SentDecision.bouncer_id == bouncer.id,
            SentDecision.decision_id.in_([row.decision_id for row in gone])))
    if fresh:
        db.session.execute(insert(SentDecision), [
            {"bouncer_id": bouncer.id, "decision_id": decision_id, "block_id": block_id, "scope": scope,
             "value": value, "scenario": scenario}
            for decision_id, (block_id, scope, value, scenario, _) in fresh.items()])
    # CrowdSec's LAPI answers an empty list as null, and bouncers expect exactly that.
    return {"new": [decision_json(decision_id, *value[1:]) for decision_id, value in new.items()] or None,
            "deleted": deleted or None}


def query_decisions(ip=None, scope=None, value=None, decision_type=None):
    """The active decisions that cover ``ip`` (all without it), narrowed by scope, value, type; None when none.

    ``ip`` is a normalized address (an IPv4-mapped IPv6 address is its IPv4 one).
    """
    active = _active_decisions(containing=ip)
    address = ipaddress.ip_address(ip) if ip else None
    result = []
    for decision_id, (_, decision_scope, decision_value, scenario, remaining) in active.items():
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

