"""What the appeals feature forgets, and when (``flask purge``, guardsvc.retention)."""
from sqlalchemy import update

from guardsvc.appeals.conversation import erase_conversations
from guardsvc.appeals.models import UnblockTicket
from guardsvc.appeals.statuses import DECIDED
from guardsvc.extensions import db
from guardsvc.retention.service import Rule, days_ago

TICKET_PERSONAL_FIELDS = ("name", "email", "phone", "reason", "ip_address", "local_ip", "device_id",
                          "user_agent", "return_path")


def _tickets_due(now, config):
    return (UnblockTicket.status.in_(DECIDED), UnblockTicket.personal_data_erased_at.is_(None),
            UnblockTicket.resolved_at < days_ago(now, config, "RETENTION_DAYS"))


def _erase_tickets(ids, now):
    """Number, status, dates and public notes stay: the status check keeps working.

    The conversation (messages, private links) goes with the personal fields.
    """
    db.session.execute(update(UnblockTicket).where(UnblockTicket.id.in_(ids))
                       .values({**dict.fromkeys(TICKET_PERSONAL_FIELDS), "personal_data_erased_at": now})
                       .execution_options(synchronize_session=False))
    erase_conversations(ids)


RULES = (Rule("tickets erased", UnblockTicket, _tickets_due, _erase_tickets),)
