"""Retention of personal data (contract section 10): one small rule per kind of record.

A rule names the rows that are due (a condition on one table at a moment) and
what happens to a batch of them. ``purge`` walks each rule's due rows in
primary-key order, a batch at a time, so a big table is never locked for long
and every batch can be committed on its own. Another feature retires its own
personal data by appending its rule to ``RULES``.
"""
import json
from dataclasses import dataclass
from datetime import timedelta, timezone
from typing import Callable

from flask import current_app
from sqlalchemy import delete, func, inspect, or_, select, update

from guardsvc.storage import clock
from guardsvc.appeals.conversation import erase_conversations
from guardsvc.appeals.models import UnblockTicket
from guardsvc.appeals.statuses import DECIDED
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.outbox.models import ERASED_BODY, FINISHED, OutboxMessage
from guardsvc.sessions.models import UserSession
from guardsvc.sessions.service import idle_cutoff
from guardsvc.signin.models import EmailVerification, LoginEvent
from guardsvc.accounts.models import PasswordReset
from guardsvc.blocks.models import MANUAL, AllowEntry, EdgeChange
from guardsvc.webhooks.models import FINISHED as HOOKS_FINISHED, HookDelivery
from guardsvc.selfrelease.models import SelfRelease, UsedProof

BATCH_SIZE = 500
# Keys earlier audit entries used for a person's address, device or contact.
PERSONAL_AUDIT_KEYS = ("target", "local_ip", "email", "name", "ip_address", "device_id")
TICKET_PERSONAL_FIELDS = ("name", "email", "phone", "reason", "ip_address", "local_ip", "device_id",
                          "user_agent", "return_path")


@dataclass(frozen=True)
class Rule:
    """``due(now, config)``: SQL condition on ``model``; ``apply(ids, now)``: retire those rows."""

    label: str  # English, as ``flask purge`` prints it
    model: type
    due: Callable
    apply: Callable


def _days_ago(now, config, setting):
    return now - timedelta(days=config[setting])


def _tickets_due(now, config):
    return (UnblockTicket.status.in_(DECIDED), UnblockTicket.personal_data_erased_at.is_(None),
            UnblockTicket.resolved_at < _days_ago(now, config, "RETENTION_DAYS"))


def _erase_tickets(ids, now):
    """Number, status, dates and public notes stay: the status check keeps working.

    The conversation (messages, private links) goes with the personal fields.
    """
    db.session.execute(update(UnblockTicket).where(UnblockTicket.id.in_(ids))
                       .values({**dict.fromkeys(TICKET_PERSONAL_FIELDS), "personal_data_erased_at": now})
                       .execution_options(synchronize_session=False))
    erase_conversations(ids)


def _sign_ins_due(now, config):
    return (LoginEvent.created_at < _days_ago(now, config, "SIGNIN_HISTORY_DAYS"),)


def _sessions_due(now, config):
    return (UserSession.last_seen_at < idle_cutoff(now),)


def _delete(model):
    def apply(ids, now):
        db.session.execute(delete(model).where(model.id.in_(ids)).execution_options(synchronize_session=False))
    return apply


def _mail_bodies_due(now, config):
    """Left by a deliverer that kept bodies (the deliverer now drops them as it finishes)."""
    return (OutboxMessage.status.in_(FINISHED),
            or_(OutboxMessage.body_text != "", OutboxMessage.body_html.is_not(None)))


def _remove_mail_bodies(ids, now):
    db.session.execute(update(OutboxMessage).where(OutboxMessage.id.in_(ids))
                       .values(ERASED_BODY).execution_options(synchronize_session=False))


def _finished_long_ago(model, finished):
    """Finished rows of a queue past the retention period (finished mail: the recipient's address goes with
    the row; a finished webhook delivery or unban has no body left, but its row says when what happened)."""
    def due(now, config):
        return (model.status.in_(finished), model.created_at < _days_ago(now, config, "RETENTION_DAYS"))
    return due


def _audit_due(now, config):
    return (or_(*(AuditEvent.details.contains(f'"{key}":') for key in PERSONAL_AUDIT_KEYS)),)


def _scrub_audit(ids, now):
    for event in db.session.scalars(select(AuditEvent).where(AuditEvent.id.in_(ids))):
        try:
            details = json.loads(event.details)
        except ValueError:
            continue
        if isinstance(details, dict):
            kept = {key: value for key, value in details.items() if key not in PERSONAL_AUDIT_KEYS}
            event.details = json.dumps(kept, ensure_ascii=False, sort_keys=True) if kept else None
    db.session.flush()


def _old_resets_due(now, config):
    """Reset links (and the address that asked for each) past the retention period."""
    return (PasswordReset.created_at < _days_ago(now, config, "RETENTION_DAYS"),)


# An e-mailed sign-in code is of no use once its quarter of an hour is over; its row (an address and
# a place) is kept a day for the owner's and the operator's questions, then goes.
EMAIL_CODES_KEPT = timedelta(days=1)


def _old_email_codes_due(now, config):
    return (EmailVerification.expires_at < now - EMAIL_CODES_KEPT,)


def _spent_approval_allows_due(now, config):
    """An approval's or a self-release's allow entry pairs a person's address with their device: once
    it has ended (expired or removed) for the retention period, nothing keeps the two linked."""
    ended = func.coalesce(AllowEntry.removed_at, AllowEntry.expires_at)
    return (AllowEntry.made_by != MANUAL, ended < _days_ago(now, config, "RETENTION_DAYS"))


def _used_proofs_due(now, config):
    """A used proof's challenge has expired: it is refused as expired from then on, the row has no use."""
    return (UsedProof.expires_at < now,)


def _delete_used_proofs(digests, now):
    db.session.execute(delete(UsedProof).where(UsedProof.digest.in_(digests)).execution_options(
        synchronize_session=False))


def _self_release_addresses_due(now, config):
    """A release's address and device keys, once neither its cooldown nor the retention period needs them.

    The row stays (without them) for the desk's figures."""
    days = max(config["RETENTION_DAYS"], config["SELF_RELEASE_COOLDOWN_DAYS"])
    return (SelfRelease.ip_address.is_not(None), SelfRelease.created_at < now - timedelta(days=days))


def _erase_self_release_addresses(ids, now):
    db.session.execute(update(SelfRelease).where(SelfRelease.id.in_(ids))
                       .values(ip_address=None, address_key=None, device_key=None, network_key=None)
                       .execution_options(synchronize_session=False))


# How long the edge's change log reaches back: an edge that has not pulled for longer loads the whole list.
EDGE_CHANGES_KEPT = timedelta(days=1)


def _old_edge_changes_due(now, config):
    """Changes every running edge has long pulled; the newest stays, so a cursor older than the log shows."""
    cutoff = int((now - EDGE_CHANGES_KEPT).replace(tzinfo=timezone.utc).timestamp())
    return (EdgeChange.logged_at < cutoff, EdgeChange.id < select(func.max(EdgeChange.id)).scalar_subquery())


RULES = [
    Rule("tickets erased", UnblockTicket, _tickets_due, _erase_tickets),
    Rule("sign-in events deleted", LoginEvent, _sign_ins_due, _delete(LoginEvent)),
    Rule("mail bodies removed", OutboxMessage, _mail_bodies_due, _remove_mail_bodies),
    Rule("finished mail deleted", OutboxMessage, _finished_long_ago(OutboxMessage, FINISHED), _delete(OutboxMessage)),
    Rule("audit entries scrubbed", AuditEvent, _audit_due, _scrub_audit),
    Rule("idle sessions deleted", UserSession, _sessions_due, _delete(UserSession)),
    Rule("password reset links deleted", PasswordReset, _old_resets_due, _delete(PasswordReset)),
    Rule("e-mailed sign-in codes deleted", EmailVerification, _old_email_codes_due, _delete(EmailVerification)),
    Rule("approval and self-release allow entries deleted", AllowEntry, _spent_approval_allows_due, _delete(AllowEntry)),
    Rule("used self-release proofs deleted", UsedProof, _used_proofs_due, _delete_used_proofs),
    Rule("self-release addresses erased", SelfRelease, _self_release_addresses_due, _erase_self_release_addresses),
    Rule("finished webhook deliveries deleted", HookDelivery, _finished_long_ago(HookDelivery, HOOKS_FINISHED),
         _delete(HookDelivery)),
    Rule("old edge list changes deleted", EdgeChange, _old_edge_changes_due, _delete(EdgeChange)),
]


def count_due(rule, now):
    """How many rows ``rule`` would retire at ``now``."""
    conditions = rule.due(now, current_app.config)
    return db.session.scalar(select(func.count()).select_from(rule.model).where(*conditions))


def apply_rule(rule, now, after_batch=None):
    """Retire ``rule``'s due rows in batches (primary-key order); returns how many.

    Walking by primary key always moves forward, even past a row that a batch
    could not change. ``after_batch`` (the caller's commit) ends each batch's
    transaction, so locks are held for one batch only.
    """
    key = inspect(rule.model).primary_key[0]
    conditions, done, last = rule.due(now, current_app.config), 0, None
    while True:
        query = select(key).where(*conditions)
        if last is not None:
            query = query.where(key > last)
        ids = db.session.scalars(query.order_by(key).limit(BATCH_SIZE)).all()
        if not ids:
            return done
        rule.apply(ids, now)
        done, last = done + len(ids), ids[-1]
        if after_batch is not None:
            after_batch()


def purge(*, dry_run=False, after_batch=None, now=None):
    """Apply every retention rule now; ``[(label, count), ...]``. A dry run only counts."""
    now = now or clock.utcnow()
    if dry_run:
        return [(rule.label, count_due(rule, now)) for rule in RULES]
    return [(rule.label, apply_rule(rule, now, after_batch)) for rule in RULES]
