"""Ticket statuses and how people read them: one table for the pages, the e-mails and the CLI."""
from dataclasses import dataclass

from guardsvc import messages

PENDING = "pending"
APPROVED = "approved"
REJECTED = "rejected"


@dataclass(frozen=True)
class TicketStatus:
    """One status: its stored value, its Indonesian label, and what it means for the appellant."""

    value: str
    label: str
    explanation: str


# In the order people meet them (and lists show them).
TABLE = {status.value: status for status in (
    TicketStatus(PENDING, messages.TICKET_PENDING_LABEL, messages.TICKET_PENDING_EXPLAINED),
    TicketStatus(APPROVED, messages.TICKET_APPROVED_LABEL, messages.TICKET_APPROVED_EXPLAINED),
    TicketStatus(REJECTED, messages.TICKET_REJECTED_LABEL, messages.TICKET_REJECTED_EXPLAINED),
)}
STATUSES = tuple(TABLE)
DECIDED = (APPROVED, REJECTED)


def label(status):
    """``"Disetujui"`` for ``"approved"``."""
    return TABLE[status].label


def explanation(status, access_opened=None):
    """What ``status`` means for the appellant; an approval that opened nothing says so."""
    if status == APPROVED and access_opened is False:
        return messages.TICKET_APPROVED_NOTHING_OPENED_EXPLAINED
    return TABLE[status].explanation
