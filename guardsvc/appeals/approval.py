"""What approving a ticket does: lift the blocks on exactly this client, let it past a range.

``preview_approval`` is read-only and says what an approval will do; the
decision page shows it and ``carry_out`` does exactly what it says, so what the
administrator saw and what happened cannot drift apart.
"""
from dataclasses import dataclass, field
from datetime import timedelta

from flask import current_app

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.blocks.allows import add_allow_entry, allow_entry_for
from guardsvc.blocks.models import APPROVAL, target_kind
from guardsvc.blocks.networks import canonical_network, display_target
from guardsvc.blocks.service import blocks_on_client, lift_blocks
from guardsvc.crowdsec.source import queue_decision_deletions
from guardsvc.webhooks.fail2ban import queue_unbans
from guardsvc.web.identity import device_label


@dataclass
class ApprovalPlan:
    """The blocks an approval lifts and the allow entry it adds."""

    exact: list = field(default_factory=list)  # blocks on exactly this client: always lifted
    ranges: list = field(default_factory=list)  # active ranges that cover the client
    chosen_ranges: list = field(default_factory=list)  # ranges the administrator lifts as well
    allow: dict | None = None  # add_allow_entry's target: the address, with the device when there is one

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
    plan = ApprovalPlan()
    for block in blocks_on_client(ticket.ip_address, ticket.device_id):
        (plan.ranges if target_kind(block) == "cidr" else plan.exact).append(block)
    plan.chosen_ranges = _chosen(plan.ranges, lift_ranges)
    if plan.kept_ranges and allow_entry_for(ticket.ip_address, ticket.device_id) is None:
        plan.allow = {"network": canonical_network(ticket.ip_address), "paired_device_id": ticket.device_id,
                      "device_issued": ticket.device_issued, "made_by": APPROVAL}
    return plan


def carry_out(ticket, plan, *, actor=None, origin_ip=None):
    """Lift the plan's blocks and add its allow entry; returns (lifted blocks, allow entries)."""
    reason = messages.APPEAL_APPROVED_LIFT_REASON.format(ticket=ticket.ticket_number)
    lifted = lift_blocks(plan.to_lift, actor=actor, reason=reason)
    queue_decision_deletions(lifted)  # a block imported from CrowdSec: delete that decision there, by its id
    queue_unbans(display_target(block.network) for block in lifted if target_kind(block) == "ip")  # fail2ban too
    entries = []
    if plan.allow:
        until = clock.utcnow() + timedelta(days=current_app.config["APPEAL_ALLOW_DAYS"])
        entries.append(add_allow_entry(**plan.allow, expires_at=until, reason=reason, actor=actor,
                                       origin_ip=origin_ip))
    return lifted, entries
