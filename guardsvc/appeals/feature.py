"""Unblock appeals: the JSON door, the form and status pages, the conversation, ``flask tickets``."""
from guardsvc import messages
from guardsvc.appeals import api, conversation_views, retention, views
from guardsvc.appeals.cli import tickets_cli
from guardsvc.appeals.service import count_pending
from guardsvc.features import Feature

FEATURE = Feature(
    "appeals",
    blueprints=(api.bp, views.bp, conversation_views.bp),
    commands=(tickets_cli,),
    retention_rules=retention.RULES,
    gauges={"guardsvc_pending_tickets": ("Tickets waiting for a decision.", count_pending)},
    audit_actions={
        "ticket.approved": messages.AUDIT_TICKET_APPROVED,
        "ticket.rejected": messages.AUDIT_TICKET_REJECTED,
        "ticket.claimed": messages.AUDIT_TICKET_CLAIMED,
        "ticket.released": messages.AUDIT_TICKET_RELEASED,
        "ticket.admin": messages.AUDIT_TICKET_MESSAGE,
        "ticket.note": messages.AUDIT_TICKET_NOTE,
    },
)
