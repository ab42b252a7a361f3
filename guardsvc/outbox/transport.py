"""Delivering mail over SMTP (without a mail server, outbox.mailbox keeps it instead)."""
import smtplib
from urllib.parse import urlsplit

from flask_mail import BadHeaderError, Message, sanitize_address


def build_message(outbox_message, config):
    """A MIME message (plain text plus HTML alternative) for one outbox row.

    The Message-ID is derived from the row, so a retried message keeps its id
    and a receiving system can recognise a repeat.
    """
    host = urlsplit(config["BASE_URL"]).hostname or "guardsvc.local"
    created = outbox_message.created_at.strftime("%Y%m%d%H%M%S")
    message = Message(subject=outbox_message.subject, recipients=[outbox_message.recipient],
                      body=outbox_message.body_text, html=outbox_message.body_html,
                      sender=config["MAIL_DEFAULT_SENDER"])
    message.msgId = f"<guardsvc-outbox-{outbox_message.id}-{created}@{host}>"
    return message


class SmtpTransport:
    """One SMTP connection for a batch of messages, with a timeout on every socket operation."""

    def __init__(self, config):
        self.config = config
        self.connection = None

    def __enter__(self):
        config = self.config
        factory = smtplib.SMTP_SSL if config["MAIL_USE_SSL"] else smtplib.SMTP
        self.connection = factory(config["MAIL_SERVER"], config["MAIL_PORT"],
                                  timeout=config["MAIL_TIMEOUT_SECONDS"])
        if config["MAIL_USE_TLS"]:
            self.connection.starttls()
        if config["MAIL_USERNAME"] and config["MAIL_PASSWORD"]:
            self.connection.login(config["MAIL_USERNAME"], config["MAIL_PASSWORD"])
        return self

    def __exit__(self, *exc):
        try:
            self.connection.quit()
        except (smtplib.SMTPException, OSError):
            self.connection.close()
        return False

    def send(self, outbox_message):
        message = build_message(outbox_message, self.config)
        if message.has_bad_headers():
            # A line break in an address or subject would be silently rewritten: never send it.
            raise BadHeaderError("line break in a header")
        self.connection.sendmail(sanitize_address(message.sender),
                                 [sanitize_address(outbox_message.recipient)], message.as_bytes())


def is_permanent(error):
    """Failures that no retry can cure: a malformed message, or every recipient refused with 5xx."""
    if isinstance(error, BadHeaderError):
        return True
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    return isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500 \
        and not isinstance(error, smtplib.SMTPServerDisconnected)
