"""What the outbox forgets, and when (``flask purge``, guardsvc.retention)."""
from sqlalchemy import or_, update

from guardsvc.extensions import db
from guardsvc.outbox.models import ERASED_BODY, FINISHED, OutboxMessage
from guardsvc.retention.service import Rule, delete_rows, finished_long_ago


def _mail_bodies_due(now, config):
    """Left by a deliverer that kept bodies (the deliverer now drops them as it finishes)."""
    return (OutboxMessage.status.in_(FINISHED),
            or_(OutboxMessage.body_text != "", OutboxMessage.body_html.is_not(None)))


def _remove_mail_bodies(ids, now):
    db.session.execute(update(OutboxMessage).where(OutboxMessage.id.in_(ids))
                       .values(ERASED_BODY).execution_options(synchronize_session=False))


RULES = (
    Rule("mail bodies removed", OutboxMessage, _mail_bodies_due, _remove_mail_bodies),
    Rule("finished mail deleted", OutboxMessage, finished_long_ago(OutboxMessage, FINISHED),
         delete_rows(OutboxMessage)),
)
