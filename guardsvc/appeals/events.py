"""What webhooks say about a ticket (``ticket.submitted``, ``ticket.decided``): references and states.

Never the appellant's name, contact, reason, address or device, nor the notes:
a receiver that needs them follows ``url`` to the desk, as an administrator.
"""
from guardsvc.storage.clock import isoformat
from guardsvc.web.links import external_url
from guardsvc.webhooks.service import queue_event


def ticket_data(ticket, **more):
    """The ``data`` of a ticket event: number, status, dates, the block it was made under, the desk's link."""
    return {"ticket_number": ticket.ticket_number, "status": ticket.status,
            "submitted_at": isoformat(ticket.created_at), "decided_at": isoformat(ticket.resolved_at),
            "block_reference": ticket.block.reference if ticket.block_id else None,
            "url": external_url("admin_pages.ticket", ticket_number=ticket.ticket_number), **more}


def queue_ticket_event(event_type, ticket, **more):
    """Queue ``event_type`` about ``ticket`` for the webhooks that want it (in the caller's transaction)."""
    return queue_event(event_type, lambda: ticket_data(ticket, **more))
