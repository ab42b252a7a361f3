"""What the administrator's ticket page shows besides the decision: claim, conversation, templates."""
from guardsvc.appeals import conversation, desk
from guardsvc.web.errors import NotFound


def template_text(template_id):
    """The body of reply template ``template_id`` (a query parameter), or None when there is none such."""
    if not (template_id or "").isdigit() or len(template_id) > 9:
        return None
    try:
        return desk.get_template(int(template_id)).body
    except NotFound:
        return None


def ticket_desk_context(ticket, values, errors=None):
    """Template context of the desk parts of the ticket page (the message form's ``values`` and ``errors``).

    ``values["body"]`` may hold a reply template's text, to edit before sending.
    """
    return {"thread": conversation.thread(ticket, for_appellant=False),
            "reply_templates": desk.list_templates(),
            "answered": ticket.id in desk.answered_since_asked([ticket.id]),
            "desk_values": values, "desk_errors": errors}
