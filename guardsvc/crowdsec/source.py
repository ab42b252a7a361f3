"""CrowdSec as a source of blocks: LAPI ban decisions become blocks; an approval deletes its decision by id.

Each ``ban`` on an ``Ip`` or a ``Range`` becomes a block (origin ``crowdsec``,
the decision id, its expiry), so the person banned sees guardsvc's block page
and can appeal. A decision deleted or expired there lifts its block here. When
an approval lifts such a block, a ``DecisionDeletion`` is queued in the same
transaction: the worker deletes **that decision by its id** as the machine,
retrying until the LAPI confirms. Never by IP: deleting by IP removes every
decision covering the address, whole ranges included.
"""
import logging
from datetime import timedelta

from flask import current_app
from sqlalchemy import select

from guardsvc import messages
from guardsvc.stored_texts import for_storage
from guardsvc.blocks import coverage
from guardsvc.blocks.coverage import public_addresses_of
from guardsvc.blocks.imported import active_imported_blocks, import_block, imported_decisions, lift_imported_blocks
from guardsvc.blocks.models import ORIGIN_CROWDSEC
from guardsvc.blocks.networks import TOO_WIDE, canonical_network
from guardsvc.blocks.bounds import bounds_refusal
from guardsvc.crowdsec.decisions import BAN, IP_SCOPE, RANGE_SCOPE, parse_go_duration
from guardsvc.crowdsec.lapi import LapiError, delete_decision, machine_token
from guardsvc.crowdsec.models import DecisionDeletion
from guardsvc.extensions import db
from guardsvc.metrics import counters as metrics
from guardsvc.storage import clock
from guardsvc.storage.inserts import insert_unless_conflict
from guardsvc.storage.queue import backoff

log = logging.getLogger("guardsvc.crowdsec")
SCOPES = {IP_SCOPE.lower(), RANGE_SCOPE.lower()}
MAX_BACKOFF = timedelta(hours=1)


def _self_releasable(source_origin):
    """A decision of a list nobody here judged (``GUARDSVC_SELF_RELEASE_ORIGINS``, any case) is low-risk."""
    wanted = {name.casefold() for name in current_app.config["SELF_RELEASE_ORIGINS"]}
    return bool(source_origin) and source_origin.casefold() in wanted


def _ban_target(decision):
    """``(decision id, canonical network, expires_at, scenario)`` of a ban on an Ip or Range, else None."""
    try:
        if decision.get("type") != BAN or str(decision.get("scope", "")).lower() not in SCOPES:
            return None
        remaining = parse_go_duration(decision["duration"])
        return (int(decision["id"]), canonical_network(decision["value"]), clock.utcnow() + remaining,
                str(decision.get("scenario") or ""))
    except (KeyError, TypeError, ValueError):
        log.warning("crowdsec: decision not imported (unreadable): %r", decision)
        return None


def _refused(decision_id, network):
    """True (logged and counted, never stored) for a decision on a range no block may cover.

    One decision on ``0.0.0.0/0`` would otherwise answer 403 to everyone
    (contract section 15). Not listed as imported: a block made from it before
    the rule is lifted by the next complete pull.
    """
    refused = bounds_refusal(network)
    if refused is None:
        return False
    metrics.BLOCKS_REFUSED.labels(source="crowdsec").inc()
    log.warning("crowdsec: decision %s on %s not imported: %s (%s)", decision_id, network,
                "wider than GUARDSVC_WIDEST_BLOCK allows" if refused[0] == TOO_WIDE
                else "on GUARDSVC_NEVER_BLOCK", refused[1])
    return True


def apply_decisions(new, deleted, complete=False):
    """Apply one pull of the stream; ``(blocks created, blocks lifted)``.

    ``complete`` (a startup pull, which lists every active decision): an active
    imported block whose decision is not listed ended while nobody pulled, and
    is lifted too.

    The new decisions of one list (one origin and scenario: a CrowdSec blocklist arrives as one) are
    judged together, as a file import is: when those not imported yet would together take what the
    active blocks cover past ``GUARDSVC_MAX_COVERAGE``, none of them is imported (each is logged and
    counted as refused). So 255 ``/8`` decisions are refused, not the first dozen imported.
    """
    created, listed = [], set()
    for decisions in _lists(new):
        targets = []
        for decision in decisions:
            target = _ban_target(decision)
            if target is None or target[2] <= clock.utcnow() or _refused(target[0], target[1]):
                continue
            targets.append((decision, target))
        for decision, target in _within_coverage(targets):
            decision_id, network, expires_at, scenario = target
            listed.add((decision_id, network))
            block = _import(decision, target)
            if block is not None:
                created.append(block)
    ended_ids = {target[0] for target in map(_ban_target, deleted) if target is not None}
    ended = [block for block in active_imported_blocks(ORIGIN_CROWDSEC)
             if block.source_decision_id in ended_ids
             or (complete and (block.source_decision_id, block.network) not in listed)]
    lifted = []
    for block in ended:
        reason = for_storage(messages.CROWDSEC_DECISION_ENDED, decision_id=block.source_decision_id)
        lifted += lift_imported_blocks([block], reason)
    return created, lifted


def _lists(decisions):
    """The decisions grouped by the list they come from (origin and scenario), in the order they came."""
    groups = {}
    for decision in decisions:
        key = (str(decision.get("origin") or ""), str(decision.get("scenario") or "")) \
            if isinstance(decision, dict) else ("", "")
        groups.setdefault(key, []).append(decision)
    return groups.values()


def _within_coverage(targets):
    """``targets`` of one list, less its new decisions when together they would pass the coverage cap
    (those are logged and counted as refused)."""
    adds = sum(public_addresses_of(target[1]) for _, target in targets)
    if not adds or coverage.cap_addresses() is None:
        return targets
    imported = imported_decisions(ORIGIN_CROWDSEC, [target[0] for _, target in targets])
    fresh = [(decision, target) for decision, target in targets if (target[0], target[1]) not in imported]
    adds = sum(public_addresses_of(target[1]) for _, target in fresh)
    if not adds:
        return targets
    coverage.pass_block_gate()
    now_covered, fits = coverage.room_for(adds)
    if fits:
        return targets
    metrics.BLOCKS_REFUSED.labels(source="crowdsec").inc(len(fresh))
    for decision, target in fresh:
        log.warning("crowdsec: decision %s on %s not imported: with the other %s new decisions of origin %s, "
                    "scenario %s, blocks would cover %s of the public IPv4 space (GUARDSVC_MAX_COVERAGE: %s)",
                    target[0], target[1], len(fresh) - 1, decision.get("origin"), target[3],
                    coverage.share_text(now_covered + adds), coverage.cap_text())
    refused = {(target[0], target[1]) for _, target in fresh}
    return [(decision, target) for decision, target in targets if (target[0], target[1]) not in refused]


def _import(decision, target):
    """The block of one decision (None when imported before, or refused by the coverage cap meanwhile)."""
    decision_id, network, expires_at, scenario = target
    reason = for_storage(messages.CROWDSEC_BLOCK_REASON, decision_id=decision_id, scenario=scenario)
    source_origin = str(decision.get("origin") or "")[:32] or None
    try:
        return import_block(ORIGIN_CROWDSEC, decision_id, network, expires_at, reason,
                            source_origin=source_origin, self_release=_self_releasable(source_origin))
    except coverage.CoverageExceeded as refused:  # counted by create_block
        log.warning("crowdsec: decision %s on %s not imported: blocks would cover %s of the public IPv4 space "
                    "(GUARDSVC_MAX_COVERAGE: %s)", decision_id, network,
                    coverage.share_text(refused.covered + refused.addresses), coverage.cap_text())
        return None


def queue_decision_deletions(blocks):
    """Queue the deletion of the CrowdSec decision behind each of these lifted blocks (others are skipped)."""
    queued = []
    for block in blocks:
        if block.origin != ORIGIN_CROWDSEC or block.source_decision_id is None:
            continue
        now = clock.utcnow()
        job = insert_unless_conflict(DecisionDeletion, {
            "decision_id": block.source_decision_id, "block_reference": block.reference, "created_at": now,
            "attempts": 0, "next_attempt_at": now, "confirmed_at": None, "last_error": None})
        if job is not None:
            queued.append(job)
    return queued


def due_deletions(limit):
    """Deletions not yet confirmed whose next attempt is due, oldest first (PostgreSQL: rows others hold skipped)."""
    return db.session.scalars(select(DecisionDeletion).where(
        DecisionDeletion.confirmed_at.is_(None), DecisionDeletion.next_attempt_at <= clock.utcnow())
        .order_by(DecisionDeletion.id).limit(limit).with_for_update(skip_locked=True)).all()


def send_deletion(job, token):
    """Delete the job's decision on the LAPI; the job is confirmed, or scheduled again with backoff.

    A decision the LAPI no longer has is as deleted as it gets: confirmed.
    """
    job.attempts += 1
    try:
        count = delete_decision(token, job.decision_id)
    except LapiError as exc:
        if not _already_gone(exc):
            _retry_later(job, exc)
            return False
        count = 0
    job.confirmed_at, job.last_error = clock.utcnow(), None
    log.info("crowdsec: decision %s deleted (%s removed) after the lift of %s", job.decision_id, count,
             job.block_reference)
    return True


def _already_gone(error):
    """The LAPI has no such decision: 404, or (1.4.x) 500 "decision with id '7' doesn't exist"."""
    return error.status == 404 or (error.status == 500 and "doesn't exist" in str(error))


def _retry_later(job, error):
    delay = backoff(timedelta(seconds=current_app.config["CROWDSEC_RETRY_SECONDS"]), job.attempts, MAX_BACKOFF)
    job.next_attempt_at, job.last_error = clock.utcnow() + delay, str(error)[:1000]
    log.warning("crowdsec: decision %s not deleted yet (attempt %s), retry in %ss: %s", job.decision_id,
                job.attempts, int(delay.total_seconds()), error)


def login_for(jobs):
    """The machine's JWT, or None after scheduling every job again when the login fails."""
    try:
        return machine_token()
    except LapiError as exc:
        for job in jobs:
            job.attempts += 1
            _retry_later(job, exc)
        return None
