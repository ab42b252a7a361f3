"""Allow entries: IPs, CIDR ranges and devices that are never blocked while the entry is active.

The guard honours them in the same statement that finds blocks
(``service._enforced_statement``); this module creates, removes and lists them.
"""
from sqlalchemy import and_, or_, select, update

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.audit.service import record_event
from guardsvc.blocks.coverage import pass_block_gate
from guardsvc.blocks.models import MANUAL, AllowEntry, target_kind
from guardsvc.blocks.service import checked_expiry, checked_target, filtered, for_each_client
from guardsvc.web.errors import InvalidState, NotFound
from guardsvc.extensions import db
from guardsvc.web.listing import paginate


def audit_target(entry):
    return f"allow-{entry.id}"


def add_allow_entry(*, network=None, device_id=None, reason=None, expires_at=None, minutes=None,
                    actor=None, origin_ip=None, paired_device_id=None, made_by=MANUAL, device_issued=False):
    """Allow an IP/CIDR or a device id (exactly one), optionally until ``expires_at``; audited.

    ``paired_device_id`` narrows an address entry to that device there; ``made_by``
    other than MANUAL (an approval's, a self-release's) yields to blocks created after
    it (``AllowEntry.outranks``).

    Such an entry passes the blocks' gate first and is stamped after it: a block import that is running
    then either sees it committed when it finishes (and makes its blocks on that client later than it)
    or commits first (and its blocks are older than the entry). See ``bulk_import.restamp_for_entries``.
    """
    target = {"network": network, "device_id": device_id, "reason": reason, "paired_device_id": paired_device_id,
              "device_issued": device_issued}
    return add_allow_entries([target], expires_at=expires_at, minutes=minutes, actor=actor, origin_ip=origin_ip,
                             made_by=made_by)[0]


def add_allow_entries(targets, *, expires_at=None, minutes=None, actor=None, origin_ip=None, made_by=MANUAL):
    """``add_allow_entry`` for each of ``targets`` (dicts of its target arguments and ``reason``), in one flush.

    Entries made by an approval or a self-release pass the blocks' gate first and are stamped after it: a
    block import that is running then either sees them committed when it finishes (and makes its blocks
    on those clients later than them) or commits first (and its blocks are older than the entries). See
    ``bulk_import.restamp_for_entries``.
    """
    networks = [checked_target(target.get("network"), target.get("device_id")) for target in targets]
    if made_by != MANUAL and targets:
        pass_block_gate()
    now = clock.utcnow()
    until = checked_expiry(now, minutes, expires_at)
    entries = [AllowEntry(network=network, device_id=target.get("device_id"), reason=target.get("reason"),
                          created_at=now, expires_at=until, created_by_id=actor.id if actor else None,
                          paired_device_id=target.get("paired_device_id"), made_by=made_by,
                          from_approval=made_by != MANUAL, device_issued=target.get("device_issued", False))
               for network, target in zip(networks, targets)]
    if not entries:
        return entries
    db.session.add_all(entries)
    db.session.flush()
    for entry in entries:
        record_event("allow.created", audit_target(entry), actor=actor, ip_address=origin_ip, details={
            "kind": target_kind(entry), "reason": entry.reason, "expires_at": clock.isoformat(entry.expires_at),
            **({"made_by": made_by} if made_by != MANUAL else {})})
    return entries


def get_allow_entry(entry_id):
    """The allow entry with this id, else NotFound."""
    entry = db.session.get(AllowEntry, entry_id)
    if entry is None:
        raise NotFound(messages.ALLOW_NOT_FOUND)
    return entry


def remove_allow_entry(entry_id, *, actor=None, origin_ip=None):
    """Remove an allow entry (the row stays with who and when). Already removed: 409."""
    entry = get_allow_entry(entry_id)
    # Conditional UPDATE: of two concurrent removals exactly one changes the row.
    changed = db.session.execute(
        update(AllowEntry).where(AllowEntry.id == entry.id, AllowEntry.removed_at.is_(None))
        .values(removed_at=clock.utcnow(), removed_by_id=actor.id if actor else None)
        .execution_options(synchronize_session=False)).rowcount
    db.session.refresh(entry)
    if changed != 1:
        raise InvalidState(messages.ALLOW_NOT_ACTIVE)
    record_event("allow.removed", audit_target(entry), actor=actor, ip_address=origin_ip,
                 details={"kind": target_kind(entry)})
    return entry


def _active(now):
    return and_(AllowEntry.removed_at.is_(None),
                or_(AllowEntry.expires_at.is_(None), AllowEntry.expires_at > now))


def allow_matches(entry, prefixes, device_id):
    """Does the active ``entry`` match a client with these address ``prefixes`` (``service.client_prefixes``) and
    ``device_id``? Its device; its IP or a range containing the address, an address paired with a device only
    together with that device."""
    if entry.network is not None:
        return entry.network in prefixes and (entry.paired_device_id is None or
                                              bool(device_id) and entry.paired_device_id == device_id)
    return bool(device_id) and entry.device_id == device_id


def allow_entry_for(ip_address, device_id):
    """An active allow entry that matches this client (``allow_matches``), or None."""
    return allow_entries_for([(ip_address, device_id)])[0]


def allow_entries_for(clients):
    """For each ``(ip_address, device_id)``: the first active allow entry that matches it, or None.

    Read for many clients together (``service.for_each_client``).
    """
    return for_each_client(clients, AllowEntry, (_active(clock.utcnow()),), lambda found, prefixes, device_id: next(
        (entry for entry in found if allow_matches(entry, prefixes, device_id)), None))


def search_allow_entries(active=None, q=None, page=1, per_page=20):
    """Allow entries, newest first; ``active`` True/False filters, ``q`` searches (an IP finds its ranges)."""
    query = filtered(select(AllowEntry), _active(clock.utcnow()), active, q, AllowEntry.network,
                     AllowEntry.network, AllowEntry.device_id, AllowEntry.reason)
    return paginate(query.order_by(AllowEntry.created_at.desc(), AllowEntry.id.desc()), page, per_page)


def active_network_allow_entries():
    """Active allow entries that name an IP or a range, oldest first (device-only entries name no address)."""
    return db.session.scalars(select(AllowEntry).where(AllowEntry.network.is_not(None), _active(clock.utcnow()))
                              .order_by(AllowEntry.id)).all()


def allow_outranks(entry, block):
    """True when the active allow ``entry`` lets the clients it matches through ``block``.

    The rule of ``service._enforced_statement`` for one entry and one block, for
    the paths that weigh them one by one (the CrowdSec decision stream).
    """
    return entry.outranks(block, clock.utcnow())


def network_allows_changed_between(start, end):
    """Networks (texts) of the allow entries that began, were removed or expired in (``start``, ``end``]."""
    return set(db.session.scalars(select(AllowEntry.network).where(
        AllowEntry.network.is_not(None),
        or_(AllowEntry.created_at > start, AllowEntry.removed_at > start,
            and_(AllowEntry.expires_at > start, AllowEntry.expires_at <= end)))))
