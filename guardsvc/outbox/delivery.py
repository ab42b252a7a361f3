"""Delivering the outbox: claim due messages safely, send, record the outcome.

The queue's mechanics (claims under a lease, one commit per claim and per
message, backoff) are guardsvc.storage.queue's; this module sends e-mail with
them and decides what a failure means.
"""
import logging
from datetime import timedelta

from flask import current_app

from guardsvc.storage import clock, queue
from guardsvc.outbox.models import ERASED_BODY, OutboxMessage
from guardsvc.outbox.mailbox import MailboxTransport
from guardsvc.outbox.transport import SmtpTransport, is_permanent

log = logging.getLogger("guardsvc.mail")
BATCH_SIZE = 20
MAX_BACKOFF = timedelta(hours=1)
DeliveryReport = queue.Report


def transport_for(config):
    """The transport the settings ask for: the mail server, or the local mailbox when none is set."""
    return SmtpTransport(config) if config["MAIL_SERVER"] else MailboxTransport(config)


def claim_due(limit=BATCH_SIZE):
    """Claim up to ``limit`` due messages for this deliverer and commit the claim."""
    return queue.claim_due(OutboxMessage, limit)


def retry_delay(attempts):
    """Exponential backoff with jitter: base, 2x base, 4x base ... up to an hour, each varied by up to a fifth."""
    return queue.backoff(timedelta(seconds=current_app.config["MAIL_RETRY_SECONDS"]), attempts, MAX_BACKOFF)


def _record_failure(message, error, report):
    text = queue.error_text(error)
    if message.attempts >= current_app.config["MAIL_MAX_ATTEMPTS"] or is_permanent(error):
        log.error("mail %s to %s failed for good after %s attempt(s): %s",
                  message.id, message.recipient, message.attempts, text)
        queue.finish(message, status="failed", last_error=text, **ERASED_BODY)
        report.failed.append(message.id)
        return
    delay = retry_delay(message.attempts)
    log.warning("mail %s to %s not delivered (attempt %s), retry in %ss: %s",
                message.id, message.recipient, message.attempts, int(delay.total_seconds()), text)
    queue.finish(message, status="pending", last_error=text, next_attempt_at=clock.utcnow() + delay)
    report.retrying.append(message.id)


def deliver_batch(limit=BATCH_SIZE):
    """Claim one batch of due messages and try to deliver each; returns a DeliveryReport."""
    report = DeliveryReport()
    messages = claim_due(limit)
    if not messages:
        return report
    try:
        with transport_for(current_app.config) as transport:
            for message in messages:
                try:
                    transport.send(message)
                except Exception as exc:  # every failure is retried later, none is lost
                    _record_failure(message, exc, report)
                else:
                    queue.finish(message, status="sent", sent_at=clock.utcnow(), last_error=None, **ERASED_BODY)
                    report.sent.append(message.id)
    except Exception as exc:  # the server is unreachable: the whole batch waits for a retry
        for message in messages:
            if message.id not in report.sent + report.retrying + report.failed:
                _record_failure(message, exc, report)
    return report


def deliver_due(limit=BATCH_SIZE):
    """Deliver everything that is due now, batch after batch; returns one DeliveryReport."""
    return queue.drain(lambda: deliver_batch(limit))
