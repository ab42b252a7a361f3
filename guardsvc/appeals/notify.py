"""Telling an appellant the outcome of their ticket, by e-mail through the outbox."""
from guardsvc import messages
from guardsvc.appeals.statuses import APPROVED, label
from guardsvc.web.humantime import human_time
from guardsvc.web.links import external_url
from guardsvc.web.locale import in_language
from guardsvc.outbox.service import compose_mail, queue_mail


def status_url(ticket_number):
    """The public status page of a ticket, as a link for an e-mail."""
    return external_url("appeal_pages.check_status", tiket=ticket_number)


def decision_mail(ticket):
    """The decision e-mail to the ticket's address, composed in the appeal's language, to be stored in the
    deciding transaction (``outbox.service.store_mails``)."""
    with in_language(ticket.language):
        decision = label(ticket.status)
        return compose_mail(
            "appeal_decision", ticket.email,
            messages.DECISION_MAIL_SUBJECT.format(ticket=ticket.ticket_number, decision=decision.lower()),
            "appeal_decision",
            name=ticket.name, ticket_number=ticket.ticket_number, decision=decision,
            approved=ticket.status == APPROVED, opened=bool(ticket.access_opened), notes=ticket.admin_notes,
            when=human_time(ticket.resolved_at), status_url=status_url(ticket.ticket_number))


def confirmation_mail(ticket, private_url):
    """The "we received your appeal" e-mail, composed: the ticket number and the private link only.

    Anyone may type any address into the form, so until its owner opens the
    link (which verifies it) the mail carries nothing the submitter wrote, not
    even the name: it cannot carry someone's text to a stranger's inbox.
    ``ticket``: the new ticket's column values (number, e-mail, creation time).
    """
    with in_language(ticket.get("language")):
        return compose_mail(
            "appeal_received", ticket["email"],
            messages.CONFIRMATION_MAIL_SUBJECT.format(ticket=ticket["ticket_number"]), "appeal_received",
            fill={"ticket_number": ticket["ticket_number"], "when": human_time(ticket["created_at"]),
                  "private_url": private_url, "status_url": status_url(ticket["ticket_number"])})


def queue_message_mail(ticket, body, private_url):
    """Queue an administrator's message to the appellant (in the appeal's language), with a private link to answer it."""
    with in_language(ticket.language):
        return queue_mail(
            "appeal_message", ticket.email,
            messages.MESSAGE_MAIL_SUBJECT.format(ticket=ticket.ticket_number), "appeal_message",
            name=ticket.name, ticket_number=ticket.ticket_number, body=body, private_url=private_url)
