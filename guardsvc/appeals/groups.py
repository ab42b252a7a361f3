"""Tickets grouped by the block they were made under, and one decision for a whole group (contract section 18).

A blocklist entry that hits a carrier's shared addresses, a campus or a
company's NAT brings hundreds of appeals about one block. The desk lists them
per block (``list_groups``: one statement, whatever the number of groups) and
decides a group as one administrator's decision (``decide_group``): every
pending ticket of the block gets what deciding it alone would give it
(``service.follow_decisions``), in one transaction.
"""
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import case, func, select, update

from guardsvc import messages
from guardsvc.appeals.approval import lift_approved
from guardsvc.appeals.models import PENDING_ONLY, UnblockTicket
from guardsvc.appeals.service import decided_values, default_notes, follow_decisions
from guardsvc.appeals.statuses import APPROVED, REJECTED
from guardsvc.audit.service import record_event
from guardsvc.blocks.models import Block, target_kind
from guardsvc.blocks.service import get_block
from guardsvc.extensions import db
from guardsvc.storage import clock
from guardsvc.stored_texts import for_storage
from guardsvc.translation import LANGUAGES
from guardsvc.web.errors import InvalidState, ValidationFailed
from guardsvc.web.listing import DEFAULT_PER_PAGE, Page, paginate

DECISIONS = (APPROVED, REJECTED)
GUARDSVC_SOURCE = "guardsvc"
IMPORT_SOURCE = "import"
# Tickets loaded per statement after the decision (an IN list each).
LOAD_CHUNK = 500
# How long a request deciding a group may take (contract section 18: a thousand tickets in under 10 s),
# when the request deadline (GUARDSVC_REQUEST_DEADLINE_SECONDS) is shorter.
GROUP_DECISION_SECONDS = 10


def block_source(block):
    """Where a block came from, as the desk names it: ``guardsvc`` (made here), ``import`` (a blocklist),
    ``crowdsec/<origin>`` (a CrowdSec decision and where CrowdSec says it came from)."""
    if block.origin:
        return "/".join(filter(None, (block.origin, block.source_origin)))
    return IMPORT_SOURCE if block.imported_from else GUARDSVC_SOURCE


@dataclass(frozen=True)
class TicketGroup:
    """The pending tickets made under one block (``block`` None: under none)."""

    block: Block | None
    pending: int
    oldest_at: datetime
    newest_id: int | None = None  # the newest pending ticket's id (``group_summary`` only)

    @property
    def reference(self):
        return self.block.reference if self.block else None

    @property
    def source(self):
        return block_source(self.block) if self.block else None

    def age(self, now):
        return now - self.oldest_at


def _pending_per_block():
    """Pending tickets per block: how many, and the oldest one's time (the partial index by block)."""
    return (select(UnblockTicket.block_id.label("block_id"), func.count().label("pending"),
                   func.min(UnblockTicket.created_at).label("oldest"))
            .where(PENDING_ONLY).group_by(UnblockTicket.block_id).subquery("groups"))


def list_groups(page=1, per_page=DEFAULT_PER_PAGE):
    """One page of the groups, largest first (then the oldest waiting first): one statement.

    The groups, their blocks and how many groups there are come from one
    statement (a window count beside the page), so the page costs the same
    with three groups or ten thousand.
    """
    groups = _pending_per_block()
    rows = db.session.execute(
        select(Block, groups.c.pending, groups.c.oldest, func.count().over().label("total"))
        .select_from(groups).outerjoin(Block, Block.id == groups.c.block_id)
        .order_by(groups.c.pending.desc(), groups.c.oldest, groups.c.block_id)
        .limit(per_page).offset((page - 1) * per_page)).all()
    if rows:
        total = rows[0].total
    else:  # past the last page: the window had no row to count on
        total = db.session.scalar(select(func.count()).select_from(groups)) if page > 1 else 0
    return Page([TicketGroup(row[0], row.pending, row.oldest) for row in rows], page, per_page, total)


def _of_block(block):
    return UnblockTicket.block_id == block.id if block is not None else UnblockTicket.block_id.is_(None)


def group_summary(block):
    """The group of ``block`` (None: the tickets under no block), or None when none of its tickets waits.

    How many wait and the newest one's id come from one statement: a decision
    made "up to" that id decides at most that many.
    """
    pending, oldest, newest = db.session.execute(
        select(func.count(), func.min(UnblockTicket.created_at), func.max(UnblockTicket.id))
        .where(PENDING_ONLY, _of_block(block))).one()
    return TicketGroup(block, pending, oldest, newest) if pending else None


def group_tickets(block, page=1, per_page=DEFAULT_PER_PAGE):
    """One page of the group's pending tickets, oldest first."""
    query = select(UnblockTicket).where(PENDING_ONLY, _of_block(block)) \
        .order_by(UnblockTicket.created_at, UnblockTicket.id)
    return paginate(query, page, per_page)


class GroupNotDecided(InvalidState):
    """Nothing of the group was decided (409): ``decided`` is 0 in the answer."""

    def __init__(self, message):
        super().__init__(message, extra={"decided": 0})


@dataclass
class GroupDecision:
    """What a group decision did: the tickets it decided, the block it lifted, the allow entries it added."""

    block: Block
    status: str
    tickets: list = field(default_factory=list)
    lifted_block: bool = False
    lifted_blocks: list = field(default_factory=list)  # every block lifted, the group's own and each client's
    allow_entries: int = 0

    @property
    def decided(self):
        return len(self.tickets)


def check_decision(decision, lift_block):
    """A group decision is ``approved`` or ``rejected``, and only an approval lifts the block; else ValidationFailed."""
    if decision not in DECISIONS:
        raise ValidationFailed({"decision": [messages.FIELD_BAD_CHOICE.format(choices=", ".join(DECISIONS))]})
    if lift_block and decision != APPROVED:
        raise ValidationFailed({"lift_block": [messages.GROUP_LIFT_ONLY_ON_APPROVAL]})


def _notes_column(status, notes):
    """The notes each ticket gets: the administrator's, else the default in each appeal's language."""
    if notes:
        return notes
    defaults = {language: default_notes(status, language) for language in LANGUAGES}
    return case(defaults, value=UnblockTicket.language, else_=default_notes(status, None))


def _take_pending(block, status, notes, actor, now, up_to_id):
    """Decide, in one conditional UPDATE, every pending ticket of ``block``; their ids.

    ``WHERE status = 'pending'`` is what keeps a ticket from being decided
    twice: of two decisions of one group at once, the second finds the rows the
    first changed no longer pending (PostgreSQL re-reads each row it waited
    for; SQLite has one writer at a time), and a ticket decided alone meanwhile
    is left out.
    """
    conditions = [UnblockTicket.block_id == block.id, PENDING_ONLY]
    if up_to_id is not None:
        conditions.append(UnblockTicket.id <= up_to_id)
    values = {**decided_values(status, None, actor, now), "admin_notes": _notes_column(status, notes)}
    rows = db.session.execute(update(UnblockTicket).where(*conditions).values(**values)
                              .returning(UnblockTicket.id).execution_options(synchronize_session=False))
    return sorted(row.id for row in rows)


def _load(ids):
    """The decided tickets as ORM objects, fresh from the database, oldest first."""
    tickets = []
    for start in range(0, len(ids), LOAD_CHUNK):
        tickets.extend(db.session.scalars(
            select(UnblockTicket).where(UnblockTicket.id.in_(ids[start:start + LOAD_CHUNK]))
            .execution_options(populate_existing=True)))
    return sorted(tickets, key=lambda ticket: (ticket.created_at, ticket.id))


def decide_group(reference, decision, *, notes=None, lift_block=False, actor=None, origin_ip=None,
                 up_to_id=None):
    """Decide every pending ticket of the block ``reference`` as ``decision`` (``approved``/``rejected``).

    Each ticket gets its decision, ``notes`` (else the default in its
    appellant's language), its resolved time, its e-mail, its audit entry and
    its webhook event, as deciding it alone would. An approval with
    ``lift_block`` lifts the block itself, a range included (the administrator
    judged the entry wrong); without it each client gets its exact, temporary
    allow entry. ``up_to_id`` leaves out tickets submitted after the
    confirmation page counted them. Unknown reference: NotFound. Nothing
    pending (decided already, by someone else too) or a block to lift that was
    lifted meanwhile: GroupNotDecided, with nothing decided.
    """
    block = get_block(reference)
    check_decision(decision, lift_block)
    if lift_block and block.lifted_at is not None:
        raise GroupNotDecided(messages.GROUP_BLOCK_ALREADY_LIFTED.format(reference=block.reference))
    now = clock.utcnow()
    ids = _take_pending(block, decision, notes, actor, now, up_to_id)
    if not ids:
        raise GroupNotDecided(messages.GROUP_NOTHING_PENDING.format(reference=block.reference))
    result = GroupDecision(block, decision)
    if lift_block:
        reason = for_storage(messages.APPEAL_GROUP_LIFT_REASON, reference=block.reference)
        if not lift_approved([block], actor=actor, reason=reason):  # lifted by someone else meanwhile
            raise GroupNotDecided(messages.GROUP_BLOCK_ALREADY_LIFTED.format(reference=block.reference))
        result.lifted_block = True
        result.lifted_blocks.append(block)
        record_event("block.lifted", block.reference, actor=actor, ip_address=origin_ip,
                     details={"kind": target_kind(block), "reason": reason})
    for done in follow_decisions(_load(ids), actor=actor, origin_ip=origin_ip, group=block.reference):
        result.tickets.append(done.ticket)
        result.lifted_blocks.extend(done.lifted_blocks)
        result.allow_entries += len(done.allow_entries)
    record_event("tickets.group_decided", block.reference, actor=actor, ip_address=origin_ip, details={
        "decision": decision, "decided": result.decided, "notes": notes, "lift_block": result.lifted_block})
    return result


def decision_message(result):
    """The sentence that confirms a group decision to the administrator who made it."""
    template = messages.GROUP_APPROVED if result.status == APPROVED else messages.GROUP_REJECTED
    return template.format(reference=result.block.reference, count=result.decided)
