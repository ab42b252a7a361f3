"""Telling an appellant the outcome of their ticket, by e-mail through the outbox."""
from urllib.parse import urlencode

from flask import current_app

from guardsvc.outbox.service import queue_mail
from guardsvc.pages.formatting import human_time

DECISION_WORDS = {"approved": "Disetujui", "rejected": "Ditolak"}


def status_url(ticket_number):
    """The public status page of a ticket."""
    return f"{current_app.config['BASE_URL']}/banding/cek?{urlencode({'tiket': ticket_number})}"


def queue_decision_mail(ticket):
    """Queue the decision e-mail to the ticket's address, in the deciding transaction."""
    decision = DECISION_WORDS[ticket.status]
    return queue_mail(
        "appeal_decision", ticket.email,
        f"Keputusan banding {ticket.ticket_number}: {decision.lower()}", "appeal_decision",
        name=ticket.name, ticket_number=ticket.ticket_number, decision=decision,
        approved=ticket.status == "approved", notes=ticket.admin_notes,
        when=human_time(ticket.resolved_at), status_url=status_url(ticket.ticket_number))
