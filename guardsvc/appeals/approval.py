"""What approving a ticket does: lift the blocks on exactly this client, let it past a range.

``preview_approval`` is read-only and says what an approval will do; the
decision page shows it and ``carry_out`` does exactly what it says, so what the
administrator saw and what happened cannot drift apart. A group decision plans
and carries out the approvals of all its tickets together (``preview_approvals``).
"""
from dataclasses import dataclass, field
from datetime import timedelta

from flask import current_app

from guardsvc import messages
from guardsvc.stored_texts import for_storage
from guardsvc.storage import clock
from guardsvc.blocks.allows import add_allow_entries, allow_entries_for
from guardsvc.blocks.models import APPROVAL, target_kind
from guardsvc.blocks.networks import canonical_network, display_target
from guardsvc.blocks.service import blocks_on_clients, lift_blocks
from guardsvc.crowdsec.source import queue_decision_deletions
from guardsvc.webhooks.fail2ban import queue_unbans
from guardsvc.web.identity import device_label


@dataclass
class ApprovalPlan:
    """The blocks an approval lifts and the allow entry it adds."""

    exact: list = field(default_factory=list)  # blocks on exactly this client: always lifted
    ranges: list = field(default_factory=list)  # active ranges that cover the client
    chosen_ranges: list = field(default_factory=list)  # ranges the administrator lifts as well
    allow: dict | None = None  # add_allow_entries's target: the address, with the device when there is one

    @property
    def to_lift(self):
        return self.exact + self.chosen_ranges

    @property
    def kept_ranges(self):
        return [block for block in self.ranges if block not in self.chosen_ranges]

    @property
    def allow_target(self):
        """The allow entry's target as people read it (an IP without ``/32``), or None."""
        if self.allow is None:
            return None
        return display_target(self.allow["network"])

    @property
    def allow_device(self):
        """The device the allow entry is paired with, as people see it (a cookie as a fingerprint), or None."""
        if not self.allow:
            return None
        return device_label(self.allow.get("paired_device_id"), self.allow.get("device_issued"))


def _chosen(ranges, lift_ranges):
    """``lift_ranges``: True (every range), False/None (none) or the references to lift."""
    if lift_ranges is True:
        return list(ranges)
    wanted = {reference.strip().upper() for reference in lift_ranges or ()}
    return [block for block in ranges if block.reference in wanted]


def preview_approval(ticket, lift_ranges=False):
    """What approving ``ticket`` now would do; writes nothing.

    Exact blocks are those on the ticket's IP as a single address and on its
    device id; the block the client was under when it submitted is among them
    when it is one of those (it matched the same IP or device). A range wider
    than one address still covers strangers, so it is lifted only when chosen;
    while one stays, the client gets an allow entry that is exact and
    temporary: its IP as a single address together with its device id (both
    must match), for ``APPEAL_ALLOW_DAYS``, outranking only the blocks that
    exist now (a later block wins). None is added when an active allow entry
    already matches the client.
    """
    return preview_approvals([ticket], lift_ranges)[0]


def preview_approvals(tickets, lift_ranges=False):
    """``preview_approval`` of each ticket, as approving them one after the other would plan them.

    The blocks and allow entries of all the clients are read together
    (``blocks_on_clients``, ``allow_entries_for``). An allow entry planned for
    an earlier ticket counts as existing for the later ones, as it would once
    that approval was made: only an entry without a device can match another
    ticket (an entry paired with a device matches that device, which has one
    pending ticket at most).
    """
    clients = [(ticket.ip_address, ticket.device_id) for ticket in tickets]
    planned = {}  # network -> an allow entry planned here for any device there
    plans = []
    for ticket, on_client, existing in zip(tickets, blocks_on_clients(clients), allow_entries_for(clients)):
        plan = ApprovalPlan()
        for block in on_client:
            (plan.ranges if target_kind(block) == "cidr" else plan.exact).append(block)
        plan.chosen_ranges = _chosen(plan.ranges, lift_ranges)
        if plan.kept_ranges and existing is None and not _planned_for(planned, ticket):
            plan.allow = {"network": canonical_network(ticket.ip_address), "paired_device_id": ticket.device_id,
                          "device_issued": ticket.device_issued}
            if ticket.device_id is None:
                planned[plan.allow["network"]] = plan.allow
        plans.append(plan)
    return plans


def _planned_for(planned, ticket):
    return planned and canonical_network(ticket.ip_address) in planned


def lift_approved(blocks, *, actor=None, reason=None):
    """Lift ``blocks`` because an appeal was approved; returns those this call lifted.

    A block imported from CrowdSec has that decision deleted there, by its id,
    and fail2ban is told to unban a single address: through the outbox, in this transaction.
    """
    lifted = lift_blocks(blocks, actor=actor, reason=reason)
    queue_decision_deletions(lifted)
    queue_unbans(display_target(block.network) for block in lifted if target_kind(block) == "ip")
    return lifted


def carry_out(tickets, plans, *, actor=None, origin_ip=None):
    """Lift each plan's blocks and add its allow entry; ``[(lifted blocks, allow entries)]`` per ticket.

    A block two plans share (a single address two devices appealed from) is
    lifted by the first; the allow entries go in together.
    """
    lifted, wanted = [], []
    for ticket, plan in zip(tickets, plans):
        # Stored as its message id with the ticket: every reader reads it in their own language.
        reason = for_storage(messages.APPEAL_APPROVED_LIFT_REASON, ticket=ticket.ticket_number)
        lifted.append(lift_approved(plan.to_lift, actor=actor, reason=reason))
        if plan.allow:
            wanted.append({**plan.allow, "reason": reason})
    until = clock.utcnow() + timedelta(days=current_app.config["APPEAL_ALLOW_DAYS"])
    added = iter(add_allow_entries(wanted, expires_at=until, actor=actor, origin_ip=origin_ip, made_by=APPROVAL))
    return [(blocks, [next(added)] if plan.allow else []) for blocks, plan in zip(lifted, plans)]
