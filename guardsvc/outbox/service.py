"""Queueing e-mail: a row in the outbox, added in the caller's transaction."""
from flask import current_app
from sqlalchemy import func, select

from guardsvc.storage import clock
from guardsvc.storage.statements import Prepared
from guardsvc.extensions import db
from guardsvc.outbox import skeletons
from guardsvc.outbox.models import OutboxMessage


_INSERT = Prepared(OutboxMessage.__table__.insert().returning(OutboxMessage.__table__.c.id), writes=True)


def queue_mail(kind, recipient, subject, template, **context):
    """Queue a message rendered from ``templates/mail/<template>.txt`` and ``.html``.

    Only a row is inserted (no commit, no network): the message is stored if
    and only if the caller's transaction commits, and delivery happens later,
    in ``flask mail deliver``, so an SMTP outage never slows or breaks the
    caller. Returns the message's id.
    """
    return store_mail(compose_mail(kind, recipient, subject, template, **context))


def compose_mail(kind, recipient, subject, template, fill=None, **context):
    """The outbox row of a message, rendered now, to be stored later with ``store_mail``.

    Rendered in the current language: the request's, or the recipient's when
    the caller wraps this in ``guardsvc.web.locale.in_language``.

    ``fill``: values (by name, as the template names them) that the template only shows, plain or
    through ``unlinkable``, and never tests: the message is then its language's rendered skeleton
    with these values put in (``guardsvc.outbox.skeletons``), which costs a tenth of rendering it.
    The e-mails of the hot paths (an appeal's confirmation, a newly trusted device's notice) are
    composed so; the result is the same text (``tests/outbox/test_mail_skeletons.py``).

    A request that must hold a write lock as briefly as possible (a submitted
    appeal on SQLite, which has one writer at a time) renders first and writes last.
    """
    now = clock.utcnow()
    subject = str(subject)  # a message id is translated here, in the language the caller chose
    if fill and all(isinstance(value, str) and value for value in fill.values()):
        body_text, body_html = skeletons.filled(template, subject, fill, context, _render)
    else:
        context = {**(fill or {}), **{name: skeletons.resolved(value, fill or {}) for name, value in context.items()}}
        body_text = _render(f"mail/{template}.txt", context)
        body_html = _render(f"mail/{template}.html", {"subject": subject, **context})
    return {"kind": kind, "recipient": recipient, "subject": subject, "body_text": body_text,
            "body_html": body_html, "status": "pending", "attempts": 0, "next_attempt_at": now,
            "created_at": now}


def label_rows(pairs, width=0):
    """Plain-text e-mail lines "Label : value" with the colons in one column, as wide as the
    longest label (in the language of the message) and at least ``width``."""
    pairs = list(pairs)
    width = max([width, *(len(str(label)) for label, _ in pairs)])
    return "".join(f"\n{str(label).ljust(width)} : {value}" for label, value in pairs)


def init_mail_templates(app):
    app.jinja_env.globals["label_rows"] = label_rows


def _render(name, context):
    """A mail template rendered with ``context`` only.

    Straight from the app's Jinja environment (its globals, filters and
    autoescaping by file name), without ``render_template``'s context
    processors: those serve pages (the signed-in user in the header), and a
    message is rendered for its recipient, never for whoever made the request.
    """
    return current_app.jinja_env.get_template(name).render(context)


def store_mail(row):
    """Insert a composed message in the caller's transaction (one INSERT, no object to track); its id."""
    return _INSERT.scalar(row)


def store_mails(rows):
    """Insert composed messages in the caller's transaction, all in one statement."""
    if rows:
        db.session.execute(OutboxMessage.__table__.insert(), rows)


def messages_to(recipient, kind=None):
    """Queued and sent messages for one address, oldest first (for audits and tests)."""
    query = db.select(OutboxMessage).where(OutboxMessage.recipient == recipient)
    if kind:
        query = query.where(OutboxMessage.kind == kind)
    return db.session.scalars(query.order_by(OutboxMessage.id)).all()


def queued_since(recipient, kind, since):
    """True when a message of ``kind`` to ``recipient`` was queued after ``since`` (one notice a window)."""
    return db.session.scalar(select(OutboxMessage.id).where(
        OutboxMessage.recipient == recipient, OutboxMessage.kind == kind,
        OutboxMessage.created_at > since).limit(1)) is not None


def backlog():
    """``(messages waiting to be delivered, age in seconds of the oldest)``: what a scrape reports."""
    count, oldest = db.session.execute(select(func.count(), func.min(OutboxMessage.created_at)).where(
        OutboxMessage.status == "pending")).one()
    return count, ((clock.utcnow() - oldest).total_seconds() if oldest else 0.0)


def delivery_state(message_id):
    """How far one queued message got: ``queued`` (not tried yet), ``retrying`` (tried, the mail server
    failed so far; it stays queued), ``sent`` or ``failed`` (given up on)."""
    row = db.session.execute(select(OutboxMessage.status, OutboxMessage.attempts).where(
        OutboxMessage.id == message_id)).first()
    if row is None:
        return "queued"
    if row.status in ("pending", "sending"):
        # A claim counts its attempt as it starts: only an attempt that ended in a failure is a retry.
        failed_attempts = row.attempts - (1 if row.status == "sending" else 0)
        return "retrying" if failed_attempts > 0 else "queued"
    return "sent" if row.status == "sent" else "failed"
