"""Unblock appeals: submitting, looking up and deciding tickets."""
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta

from flask import current_app
from sqlalchemy import Integer, and_, bindparam, func, or_, select, update

from guardsvc import messages
from guardsvc.storage import clock, codes
from guardsvc.appeals.conversation import prepare_confirmation, store_confirmation
from guardsvc.appeals.approval import carry_out, preview_approvals
from guardsvc.appeals.events import queue_ticket_event
from guardsvc.appeals.models import PENDING_ONLY, UnblockTicket
from guardsvc.appeals.statuses import APPROVED, PENDING, REJECTED, STATUSES
from guardsvc.appeals.notify import decision_mail
from guardsvc.appeals.service_levels import observe_decision
from guardsvc.audit.service import record_event
from guardsvc.blocks.service import find_active_block_id
from guardsvc.web.errors import Cooldown, InvalidState, NotFound, TooManyPending
from guardsvc.extensions import db
from guardsvc.storage.inserts import insert_unless_conflict
from guardsvc.outbox.service import store_mails
from guardsvc.storage.statements import Prepared
from guardsvc.web.listing import COUNT_CAP, capped_count, contains_text, paginate
from guardsvc.metrics import counters as metrics
from guardsvc.web.locale import in_language

TICKET_PREFIX = codes.TICKET_PREFIX
MAX_ATTEMPTS = 8
DECISIONS = {"approve": APPROVED, "reject": REJECTED}
DEFAULT_NOTES = {APPROVED: messages.TICKET_APPROVED_DEFAULT_NOTES,
                 REJECTED: messages.TICKET_REJECTED_DEFAULT_NOTES}


def _same_client(client):
    """Who "the client" is for the cooldown: its device when it names one, else its IP.

    Device-less tickets are the only ones an IP address stands for, so a pending
    ticket of one device never holds back (nor is shown to) another device on a
    shared address.
    """
    if client.device_id:
        return UnblockTicket.device_id == client.device_id
    return and_(UnblockTicket.ip_address == client.ip_address, UnblockTicket.device_id.is_(None))


def pending_ticket_for(client):
    """This client's own pending ticket, or None."""
    return db.session.scalar(select(UnblockTicket).where(
        UnblockTicket.status == PENDING, _same_client(client)).limit(1))


_TICKETS = UnblockTicket.__table__
# Built once. The condition is the partial index's own text (PENDING_ONLY), not a bound status:
# only a literal 'pending' lets the database see that the index of pending tickets by address
# holds every row it needs (SQLite, and PostgreSQL once it plans a prepared statement generically).
_PENDING_ON_NETWORK = Prepared(select(func.count()).select_from(
    select(_TICKETS.c.id)
    .where(_TICKETS.c.ip_address == bindparam("ip"), PENDING_ONLY)
    .limit(bindparam("ceiling", type_=Integer)).subquery()))


def _pending_on_network(ip_address, ceiling):
    """How many tickets from this address are pending, counted up to ``ceiling`` and no further.

    All of a block wave behind one NAT shares an address: an unbounded count
    would read every one of its pending tickets on each new submission.
    """
    return _PENDING_ON_NETWORK.scalar({"ip": ip_address, "ceiling": ceiling})


def submit_ticket(client, *, name, email, reason, phone=None, site=None, return_path=None, language=None):
    """Open a pending ticket for ``client``; raise Cooldown while its own one is pending.

    The partial unique indexes on pending tickets are what enforce the rule:
    the insert is tried first, and when the database refuses it (a pending
    ticket of this client exists, or two submissions raced) the answer names
    the client's own ticket. A refused insert that no pending ticket explains
    was a ticket-number collision, and is retried with a new number. Beyond ``PENDING_PER_IP``
    pending tickets from one address, new clients there wait (TooManyPending):
    spam from one address is priced out without a CAPTCHA. The confirmation
    e-mail, with the private link to the conversation, is queued in the same
    transaction; it is composed before the ticket is inserted, so the three
    inserts (ticket, link, e-mail) follow one another. So does the
    ``ticket.submitted`` webhook event, when an endpoint wants it. ``site`` and
    ``return_path`` say where the appeal form was opened and which page the
    visitor wanted (the appeal pages behind a proxy); ``language`` is the one the
    appeal was written in, and every e-mail about the ticket goes out in it.
    """
    ceiling = current_app.config["PENDING_PER_IP"]
    if ceiling and _pending_on_network(client.ip_address, ceiling) >= ceiling:
        existing = pending_ticket_for(client)
        raise _cooldown(client, existing) if existing else TooManyPending()
    values = dict(name=name, email=email, phone=phone, reason=reason, ip_address=client.ip_address,
                  device_id=client.device_id, local_ip=client.local_ip, user_agent=client.user_agent,
                  device_issued=bool(client.device_id) and client.device_id == client.device_cookie,
                  block_id=find_active_block_id(client.ip_address, client.device_id, client.local_ip),
                  status=PENDING, created_at=clock.utcnow(), site=site, return_path=return_path,
                  language=language)
    for _ in range(MAX_ATTEMPTS):
        values["ticket_number"] = codes.new_code(TICKET_PREFIX)
        confirmation = prepare_confirmation(values)  # before the first write (see there)
        ticket = insert_unless_conflict(UnblockTicket, values)
        if ticket is None:
            existing = pending_ticket_for(client)
            if existing is not None:
                raise _cooldown(client, existing)
            continue  # the number was taken: draw another
        store_confirmation(ticket, confirmation)
        queue_ticket_event("ticket.submitted", ticket)
        metrics.TICKETS_SUBMITTED.inc()
        return ticket
    raise RuntimeError("could not store the ticket")  # pragma: no cover


def _cooldown(client, existing):
    """The 429 of a client with a pending ticket: its number only to the client that shows it is
    the one that submitted it — from the ticket's address, or with the service-issued device
    cookie the ticket was made with. Anyone may send a device id they guessed or saw."""
    shown = existing.ip_address == client.ip_address or (
        client.device_cookie is not None and client.device_cookie == existing.device_id)
    return Cooldown(existing.ticket_number if shown else None)


@dataclass
class Decision:
    """A decided ticket and what its approval opened; reads like the ticket for everything else."""

    ticket: UnblockTicket
    lifted_blocks: list = field(default_factory=list)
    allow_entries: list = field(default_factory=list)

    def __getattr__(self, name):
        # Only called for names the Decision lacks; "ticket" itself must never recurse.
        if name == "ticket":
            raise AttributeError(name)
        return getattr(self.ticket, name)


def decision_message(ticket):
    """The sentence that confirms a decision to the administrator who made it."""
    if ticket.status == APPROVED:
        template = messages.TICKET_APPROVED if ticket.access_opened else messages.TICKET_APPROVED_NOTHING_OPENED
    else:
        template = messages.TICKET_REJECTED
    return template.format(ticket=ticket.ticket_number)


def _by_number(ticket_number, read):
    """``read(canonical number)`` for a typed ticket number (spaces trimmed, any case), else NotFound."""
    canonical = codes.parse_code(TICKET_PREFIX, ticket_number)
    found = canonical and read(canonical)
    if not found:
        raise NotFound(messages.TICKET_NOT_FOUND)
    return found


def find_ticket(ticket_number):
    """The ticket with this number (spaces trimmed, any case), else NotFound."""
    return _by_number(ticket_number, lambda number: db.session.scalar(
        select(UnblockTicket).where(UnblockTicket.ticket_number == number)))


# A status check is the request that floods in (a block wave, everyone reloading): it reads
# the columns it shows and nothing else, through one statement built once (SQLAlchemy caches
# its compiled form), and gets plain rows instead of tracked ORM objects.
PUBLIC_COLUMNS = ("ticket_number", "status", "created_at", "resolved_at", "admin_notes", "access_opened",
                  "return_path")
_PUBLIC_STATUS = Prepared(select(*(UnblockTicket.__table__.c[name] for name in PUBLIC_COLUMNS)).where(
    UnblockTicket.__table__.c.ticket_number == bindparam("number")), alone=True)


def ticket_status(ticket_number):
    """The public side of the ticket with this number (``PUBLIC_COLUMNS``), else NotFound.

    Spaces are trimmed and any case is accepted, as in ``find_ticket``.
    """
    return _by_number(ticket_number, lambda number: _PUBLIC_STATUS.first({"number": number}))


def default_notes(status, language):
    """The notes an appellant reads when the administrator wrote none: in the appeal's language."""
    with in_language(language):
        return str(DEFAULT_NOTES[status])


def decided_values(status, notes, actor, now):
    """The columns a decision sets on a pending ticket (one conditional UPDATE, one ticket or many)."""
    return {"status": status, "resolved_at": now, "admin_notes": notes,
            "resolved_by_id": actor.id if actor else None,
            # A decision answers too: the first answer, unless a message to the appellant came before.
            "first_answered_at": func.coalesce(UnblockTicket.first_answered_at, now)}


def decide_ticket(ticket_number, action, *, actor=None, notes=None, origin_ip=None, lift_ranges=False):
    """Approve or reject a pending ticket; returns a Decision.

    The status change is one conditional UPDATE (``WHERE status = 'pending'``),
    so of two concurrent decisions exactly one changes a row; the other gets
    InvalidState (409). What follows (``follow_decision``) happens in the same
    transaction. ``actor`` None means the command line.
    """
    ticket = find_ticket(ticket_number)
    status = DECISIONS[action]
    notes = notes or default_notes(status, ticket.language)  # the appellant reads them
    changed = db.session.execute(
        update(UnblockTicket)
        .where(UnblockTicket.id == ticket.id, UnblockTicket.status == PENDING)
        .values(**decided_values(status, notes, actor, clock.utcnow()))
        .execution_options(synchronize_session=False)
    ).rowcount
    if changed != 1:
        raise InvalidState(messages.TICKET_NOT_PENDING)
    db.session.refresh(ticket)
    return follow_decision(ticket, actor=actor, origin_ip=origin_ip, lift_ranges=lift_ranges)


def follow_decision(ticket, *, actor=None, origin_ip=None, lift_ranges=False):
    """What deciding ``ticket`` (its status already changed) does besides the status; a Decision.

    An approval lifts the blocks on exactly this client and allows it past a
    range that still covers it (``approval.preview_approval``; ``lift_ranges``
    lifts ranges too); then the audit entry, the decision e-mail in the appeal's
    language, the ``ticket.decided`` webhook event and the metrics.
    """
    return follow_decisions([ticket], actor=actor, origin_ip=origin_ip, lift_ranges=lift_ranges)[0]


def follow_decisions(tickets, *, actor=None, origin_ip=None, lift_ranges=False, group=None):
    """``follow_decision`` for each of ``tickets``, as deciding them one after the other would; Decisions.

    A group decision (``group``: its block's reference, named in each audit
    entry) comes here with all its tickets: their approvals are planned and
    carried out together and their e-mails stored in one statement, so a
    thousand tickets cost a few statements per ticket, not a dozen.
    """
    decisions = [Decision(ticket) for ticket in tickets]
    approved = [decision for decision in decisions if decision.ticket.status == APPROVED]
    if approved:
        approved_tickets = [decision.ticket for decision in approved]
        outcomes = carry_out(approved_tickets, preview_approvals(approved_tickets, lift_ranges), actor=actor,
                             origin_ip=origin_ip)
        for decision, (lifted, entries) in zip(approved, outcomes):
            decision.lifted_blocks, decision.allow_entries = lifted, entries
            decision.ticket.access_opened = bool(lifted or entries)
    mails = []
    for decision in decisions:
        ticket = decision.ticket
        lifted = [block.reference for block in decision.lifted_blocks]
        record_event(f"ticket.{ticket.status}", ticket.ticket_number, actor=actor, ip_address=origin_ip, details={
            "notes": ticket.admin_notes, "lifted_blocks": lifted,
            "allow_entries": [entry.id for entry in decision.allow_entries],
            **({"site": ticket.site} if ticket.site else {}), **({"group": group} if group else {})})
        mails.append(decision_mail(ticket))
        queue_ticket_event("ticket.decided", ticket, access_opened=ticket.access_opened, lifted_blocks=lifted,
                           allow_entries=len(decision.allow_entries))
        metrics.TICKETS_DECIDED.labels(ticket.status).inc()
        observe_decision(ticket)
    store_mails(mails)
    return decisions


def list_tickets(status=None, limit=100, offset=0):
    """Tickets, newest first, optionally of one status."""
    query = select(UnblockTicket)
    if status:
        query = query.where(UnblockTicket.status == status)
    return db.session.scalars(
        query.order_by(UnblockTicket.created_at.desc(), UnblockTicket.id.desc()).limit(limit).offset(offset)
    ).all()


def search_tickets(status=None, q=None, page=1, per_page=20, oldest_first=False):
    """One page of tickets, newest (or oldest) first; ``q`` searches number, name, e-mail and IP."""
    query = select(UnblockTicket)
    if status:
        query = query.where(UnblockTicket.status == status)
    if q:
        query = query.where(contains_text(q, UnblockTicket.ticket_number, UnblockTicket.name,
                                          UnblockTicket.email, UnblockTicket.ip_address))
    order = (UnblockTicket.created_at, UnblockTicket.id) if oldest_first else \
        (UnblockTicket.created_at.desc(), UnblockTicket.id.desc())
    return paginate(query.order_by(*order), page, per_page, count_cap=COUNT_CAP)


def earlier_tickets(ticket, limit=20):
    """Tickets the same client (same IP, or same device id) opened before ``ticket``.

    A ticket whose personal data was erased has no client left to compare.
    """
    matches = [column == value for column, value in ((UnblockTicket.ip_address, ticket.ip_address),
                                                     (UnblockTicket.device_id, ticket.device_id)) if value]
    if not matches:
        return []
    same_client = or_(*matches)
    return db.session.scalars(
        select(UnblockTicket).where(same_client, UnblockTicket.id != ticket.id,
                                    UnblockTicket.created_at <= ticket.created_at)
        .order_by(UnblockTicket.created_at.desc(), UnblockTicket.id.desc()).limit(limit)).all()


def tickets_per_day(days, now=None):
    """``[(date, {"pending": n, "approved": n, "rejected": n}), ...]`` for the last ``days`` days.

    Counted by the (UTC) day a ticket was opened: one count per day and status,
    each a range of the (status, created_at) index, all in one statement. No
    per-row date arithmetic, so the cost follows the index, not the table.
    """
    now = now or clock.utcnow()
    first = (now - timedelta(days=days - 1)).date()
    dates = [first + timedelta(days=offset) for offset in range(days)]
    bounds = [datetime.combine(first + timedelta(days=offset), time.min) for offset in range(days + 1)]
    row = db.session.execute(select(*(
        select(func.count()).select_from(UnblockTicket).where(
            UnblockTicket.status == status, UnblockTicket.created_at >= start,
            UnblockTicket.created_at < end).scalar_subquery()
        for start, end in zip(bounds, bounds[1:]) for status in STATUSES))).one()
    counts = iter(row)
    return [(day, {status: next(counts) for status in STATUSES}) for day in dates]


def count_by_status():
    """``{"pending": n, "approved": n, "rejected": n}``, each counted up to ``COUNT_CAP`` (one index walk each)."""
    counts = db.session.execute(select(*(
        capped_count(select(UnblockTicket.id).where(UnblockTicket.status == status)).label(status)
        for status in STATUSES))).one()
    return dict(zip(STATUSES, counts))


def count_pending():
    """How many tickets wait for a decision."""
    return db.session.scalar(select(func.count()).select_from(UnblockTicket).where(UnblockTicket.status == PENDING))
