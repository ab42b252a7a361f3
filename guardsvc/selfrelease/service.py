"""Self-release: who may release themselves now, their challenge, and the release itself (contract section 14).

A client may release itself when it is blocked now, every block on it (its
address, the ranges around it, its device; local-IP narrowing and allow entries
aside, "whatever else applies") is self-releasable, it names a device, neither
its address (an IPv6 one by its /64), nor its device, nor its network (below)
released itself within ``SELF_RELEASE_COOLDOWN_DAYS``, fewer than
``SELF_RELEASE_PER_HOUR`` releases happened in the last 60 minutes, and neither
its network nor any of its blocks had ``NETWORK_SHARE`` of those.

The network (contract section 14, fifth edition) is the blocked range itself,
or the client's /24 (IPv4) or /48 (IPv6) when the range is wider: one holder of
a /48 under a self-releasable /32 releases once per cooldown however many
addresses it asks from, and the releases under one block cannot spend the hour
for people under the others. A release is an exact, temporary
allow entry of that address and that device (``made_by`` self_release: it yields
to any later block), so every enforcement path honours it with no change of its
own: forward auth, guarded routes and the host check read allow entries in
their one statement, the edge list sends a listed client to forward auth, and
the CrowdSec stream cuts allowed addresses out of ranges.

Releases pass one at a time (``ReleaseGate``): the cooldown and the cap count
what every other process has committed, on SQLite and PostgreSQL alike.
"""
import hashlib
import ipaddress
import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from flask import current_app, url_for
from sqlalchemy import func, select

from guardsvc import messages
from guardsvc.stored_texts import for_storage
from guardsvc.audit.service import record_event
from guardsvc.blocks.allows import add_allow_entry
from guardsvc.blocks.models import SELF_RELEASE
from guardsvc.blocks.networks import canonical_network
from guardsvc.blocks.service import blocks_on_client, find_active_block_id
from guardsvc.extensions import db
from guardsvc.metrics import counters as metrics
from guardsvc.selfrelease import proof
from guardsvc.selfrelease.models import ReleaseGate, ReleasedBlock, SelfRelease, UsedProof
from guardsvc.storage import clock
from guardsvc.storage.gates import pass_gate
from guardsvc.storage.inserts import insert_unless_conflict
from guardsvc.web.errors import Conflict, Forbidden, GuardError, ValidationFailed
from guardsvc.web.identity import DEVICE_HEADER, device_fingerprint
from guardsvc.webhooks.service import queue_event

OPEN, NOT_BLOCKED, APPEAL, NO_DEVICE, USED_UP, CLOSED, NETWORK_USED_UP, NETWORK_CLOSED = (
    "open", "not_blocked", "appeal", "no_device", "used_up", "closed", "network_used_up", "network_closed")
HOUR = timedelta(hours=1)
# Of the hour's cap (``SELF_RELEASE_PER_HOUR``), what one network or the releases under one block may use:
# 20 of the default 200, so a wave under one block (a list that hit a carrier's range) leaves 180 for people
# under every other block. At least one.
NETWORK_SHARE = 0.10
# A range wider than this counts each client by this prefix of its own address (IPv4, IPv6).
NETWORK_PREFIX = {4: 24, 6: 48}
ALTCHA_FIELD = "altcha"


def appeal_url(reference):
    """The appeal form, pre-filled with the block's reference (relative: right under any prefix)."""
    return url_for("appeal_pages.appeal_form", ref=reference)


class MustAppeal(Forbidden):
    """A block that is not self-releasable applies: the appeal form is the way (403)."""

    def __init__(self, reference):
        url = appeal_url(reference)
        super().__init__(messages.SELF_RELEASE_APPEAL.format(url=url),
                         extra={"reference": reference, "appeal_url": url})


class ProofRefused(Forbidden):
    """A proof that is base64, as the API document asks, but proves nothing for this client (403):
    unreadable inside, not valid, expired, or made for another client. ``errors`` names ``altcha``."""

    def __init__(self, message):
        super().__init__(message, errors={ALTCHA_FIELD: [message]})


class ReleaseUsedUp(GuardError):
    """This client's release is used up for now, or every release of the hour is: appeal (429)."""

    status = 429

    def __init__(self, message, reference, retry_after):
        url = appeal_url(reference)
        super().__init__(message.format(url=url), extra={"reference": reference, "appeal_url": url},
                         headers={"Retry-After": str(max(1, retry_after))})


@dataclass
class Standing:
    """What self-release can do for a client now: ``state`` and the facts behind it."""

    state: str
    blocks: list = field(default_factory=list)
    retry_after: int = 0

    @property
    def references(self):
        return sorted(block.reference for block in self.blocks)

    @property
    def reference(self):
        """The block to name to the person: a non-releasable one first, else the newest."""
        refusing = [block for block in self.blocks if not block.self_release]
        chosen = refusing or self.blocks
        return max(chosen, key=lambda block: (block.created_at, block.id)).reference if chosen else None


def address_key(ip_address):
    """What the cooldown counts an address by: the address, or an IPv6 address's /64 (one subscriber)."""
    address = ipaddress.ip_address(ip_address)
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def network_key(ip_address, blocks):
    """The network a release of this client counts by: each IP block's range itself, or the client's /24
    (IPv4) or /48 (IPv6) when the range is wider; the widest of those. None when only a device block applies."""
    address = ipaddress.ip_address(ip_address)
    prefix = NETWORK_PREFIX[address.version]
    networks = [network if network.prefixlen >= prefix else ipaddress.ip_network(f"{address}/{prefix}", strict=False)
                for network in (ipaddress.ip_network(block.network) for block in blocks if block.network)
                if network.version == address.version]
    return min(networks, key=lambda network: network.prefixlen).with_prefixlen if networks else None


def device_key(device_id):
    """The device as the cooldown counts it: a digest, never the id (a device cookie is a secret)."""
    return hashlib.sha256(device_id.encode("utf-8")).hexdigest()


def _seconds_until(moment, now):
    return int((moment - now).total_seconds()) + 1


def _latest_release(column, key, since):
    return db.session.scalar(select(func.max(SelfRelease.created_at)).where(column == key,
                                                                            SelfRelease.created_at > since))


def _cooldown_left(keys, now):
    """Seconds until none of ``keys`` (``(column, key)`` pairs) released within the cooldown; 0 when none did."""
    days = current_app.config["SELF_RELEASE_COOLDOWN_DAYS"]
    if not days:
        return 0
    since = now - timedelta(days=days)
    latest = [moment for moment in (_latest_release(column, key, since) for column, key in keys if key)
              if moment is not None]
    return _seconds_until(max(latest) + timedelta(days=days), now) if latest else 0


def _cap_left(now):
    """Seconds until the hourly cap lets one more release through; 0 when it does now."""
    cap = current_app.config["SELF_RELEASE_PER_HOUR"]
    if not cap:
        return 3600
    count, oldest = db.session.execute(select(func.count(), func.min(SelfRelease.created_at))
                                       .where(SelfRelease.created_at > now - HOUR)).one()
    return _seconds_until(oldest + HOUR, now) if count >= cap else 0


def network_share():
    """How many of the hour's releases one network, or the releases under one block, may use."""
    return max(1, math.ceil(current_app.config["SELF_RELEASE_PER_HOUR"] * NETWORK_SHARE))


def _share_left(network, blocks, now):
    """Seconds until this network and each of these blocks are under their share of the hour again; 0 if they are."""
    share, since = network_share(), now - HOUR
    used = []
    if network:
        used.append(db.session.execute(select(func.count(), func.min(SelfRelease.created_at)).where(
            SelfRelease.network_key == network, SelfRelease.created_at > since)).one())
    used += db.session.execute(
        select(func.count(), func.min(SelfRelease.created_at)).select_from(ReleasedBlock)
        .join(SelfRelease, SelfRelease.id == ReleasedBlock.release_id)
        .where(ReleasedBlock.block_id.in_([block.id for block in blocks]), SelfRelease.created_at > since)
        .group_by(ReleasedBlock.block_id)).all()
    full = [oldest for count, oldest in used if count >= share]
    return _seconds_until(min(full) + HOUR, now) if full else 0


def standing(client):
    """Where this client stands (``Standing``): may it release itself now, and if not, why not."""
    if find_active_block_id(client.ip_address, client.device_id, client.local_ip) is None:
        return Standing(NOT_BLOCKED)
    blocks = blocks_on_client(client.ip_address, client.device_id)
    if not blocks or any(not block.self_release for block in blocks):
        return Standing(APPEAL, blocks)
    if not client.device_id:
        return Standing(NO_DEVICE, blocks)
    now = clock.utcnow()
    cooldown = _cooldown_left(((SelfRelease.address_key, address_key(client.ip_address)),
                               (SelfRelease.device_key, device_key(client.device_id))), now)
    if cooldown:
        return Standing(USED_UP, blocks, cooldown)
    network = network_key(client.ip_address, blocks)
    cooldown = _cooldown_left(((SelfRelease.network_key, network),), now)
    if cooldown:
        return Standing(NETWORK_USED_UP, blocks, cooldown)
    cap = _cap_left(now)
    if cap:
        return Standing(CLOSED, blocks, cap)
    share = _share_left(network, blocks, now)
    if share:
        return Standing(NETWORK_CLOSED, blocks, share)
    return Standing(OPEN, blocks)


def refuse(found):
    """Raise what a standing other than OPEN means for the API (and the form)."""
    if found.state == NOT_BLOCKED:
        raise Conflict(messages.SELF_RELEASE_NOT_BLOCKED)
    if found.state == APPEAL:
        raise MustAppeal(found.reference)
    if found.state == NO_DEVICE:
        raise ValidationFailed({DEVICE_HEADER: [messages.SELF_RELEASE_NEEDS_DEVICE]})
    if found.state == USED_UP:
        raise ReleaseUsedUp(messages.SELF_RELEASE_USED_UP, found.reference, found.retry_after)
    if found.state == NETWORK_USED_UP:
        raise ReleaseUsedUp(messages.SELF_RELEASE_NETWORK_USED_UP, found.reference, found.retry_after)
    if found.state == NETWORK_CLOSED:
        raise ReleaseUsedUp(messages.SELF_RELEASE_NETWORK_CLOSED, found.reference, found.retry_after)
    raise ReleaseUsedUp(messages.SELF_RELEASE_CLOSED, found.reference, found.retry_after)


def open_standing(client):
    """The client's standing when it may release itself now; else the refusal is raised."""
    found = standing(client)
    if found.state != OPEN:
        metrics.SELF_RELEASES.labels(found.state).inc()
        refuse(found)
    return found


def expected_attempts():
    return proof.ATTEMPTS


def issue_challenge(client):
    """A challenge for this client and its blocks: ``(challenge dict, expires_at)``; refusals raised."""
    return challenge_for(client, open_standing(client))


def challenge_for(client, found):
    """``(challenge dict, expires_at)`` for a client whose standing ``found`` is OPEN."""
    expires_at = clock.utcnow() + timedelta(seconds=current_app.config["SELF_RELEASE_CHALLENGE_SECONDS"])
    unix = int(expires_at.replace(tzinfo=timezone.utc).timestamp())
    metrics.SELF_RELEASE_CHALLENGES.inc()
    challenge = proof.new_challenge(client.ip_address, client.device_id, found.references, unix)
    return challenge, datetime.fromtimestamp(unix, timezone.utc).replace(tzinfo=None)


PROOF_PROBLEMS = {
    proof.MALFORMED: messages.SELF_RELEASE_PROOF_MALFORMED,
    proof.UNREADABLE: messages.SELF_RELEASE_PROOF_MALFORMED,
    proof.WRONG: messages.SELF_RELEASE_PROOF_WRONG,
    proof.EXPIRED: messages.SELF_RELEASE_PROOF_EXPIRED,
    proof.OTHER_CLIENT: messages.SELF_RELEASE_PROOF_OTHER_CLIENT,
}


def _refused_proof(problem):
    """Text that is no base64 is a malformed field (422); anything else a proof that does not hold (403)."""
    metrics.SELF_RELEASES.labels("proof_" + problem).inc()
    if problem == proof.MALFORMED:
        raise ValidationFailed({ALTCHA_FIELD: [PROOF_PROBLEMS[problem]]})
    raise ProofRefused(PROOF_PROBLEMS[problem])


def release_client(client, payload, *, origin_ip=None):
    """Release this client by its proof ``payload``: the new ``SelfRelease``; refusals raised, nothing kept.

    Checked in order: the proof (signature, solution, expiry, this client), the
    client's standing and that its blocks are those the challenge named (none
    new), that the proof was not used before (a unique key, across processes),
    then, one release at a time, the cooldown and the hourly cap.
    """
    checked = proof.check_payload(payload, client.ip_address, client.device_id or "")
    if checked.problem is not None:
        _refused_proof(checked.problem)
    found = open_standing(client)
    if not set(found.references) <= set(checked.references):
        metrics.SELF_RELEASES.labels("blocks_changed").inc()
        raise Conflict(messages.SELF_RELEASE_BLOCKS_CHANGED)
    now = clock.utcnow()
    spent_until = datetime.fromtimestamp(checked.expires_at_unix, timezone.utc).replace(tzinfo=None)
    if insert_unless_conflict(UsedProof, {"digest": checked.digest, "expires_at": spent_until}) is None:
        metrics.SELF_RELEASES.labels("used_before").inc()
        raise Conflict(messages.SELF_RELEASE_PROOF_USED)
    pass_gate(ReleaseGate, now)
    found = open_standing(client)  # again, now that no other release runs: what they committed counts
    return _record_release(client, found, now, origin_ip)


def _record_release(client, found, now, origin_ip):
    config = current_app.config
    allowed_until = now + timedelta(hours=config["SELF_RELEASE_HOURS"])
    references = found.references
    issued = bool(client.device_id) and client.device_id == client.device_cookie
    entry = add_allow_entry(network=canonical_network(client.ip_address), paired_device_id=client.device_id,
                            made_by=SELF_RELEASE, expires_at=allowed_until, device_issued=issued,
                            origin_ip=origin_ip,
                            reason=for_storage(messages.SELF_RELEASE_ALLOW_REASON, references=", ".join(references)))
    release = SelfRelease(created_at=now, allowed_until=allowed_until, address_key=address_key(client.ip_address),
                          device_key=device_key(client.device_id), ip_address=client.ip_address,
                          network_key=network_key(client.ip_address, found.blocks),
                          allow_entry_id=entry.id)
    db.session.add(release)
    db.session.flush()
    db.session.add_all(ReleasedBlock(release_id=release.id, block_id=block.id) for block in found.blocks)
    for block in found.blocks:
        record_event("block.self_released", block.reference, ip_address=origin_ip, details={
            "release": release.id, "allowed_until": clock.isoformat(allowed_until)})
    metrics.SELF_RELEASES.labels("released").inc()
    queue_event("block.self_released", lambda: {
        "references": references, "network": entry.network, "device": device_fingerprint(client.device_id),
        "sources": sorted({block.origin or "guardsvc" for block in found.blocks}),
        "created_at": clock.isoformat(now), "allowed_until": clock.isoformat(allowed_until)})
    release.references = references
    return release
