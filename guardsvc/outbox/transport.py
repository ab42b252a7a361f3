"""Where delivered mail goes: an SMTP server, or the log when none is configured."""
import logging
import smtplib
from urllib.parse import urlsplit

from flask_mail import BadHeaderError, Message, sanitize_address

from guardsvc.web.redaction import redact

log = logging.getLogger("guardsvc.mail")


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


class LogTransport:
    """Development: no mail server configured, so the message is written to the log."""

    def __init__(self, config):
        self.config = config

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def send(self, outbox_message):
        # One-time links and tokens in the text are masked: logs are read by more people than mail.
        log.info("GUARDSVC_MAIL_SERVER is not set; mail %s written to the log instead of sent\n"
                 "To: %s\nSubject: %s\n\n%s", outbox_message.id, outbox_message.recipient,
                 outbox_message.subject, redact(outbox_message.body_text))


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


def transport_for(config):
    """The transport the settings ask for."""
    return SmtpTransport(config) if config["MAIL_SERVER"] else LogTransport(config)


def is_permanent(error):
    """Failures that no retry can cure: a malformed message, or every recipient refused with 5xx."""
    if isinstance(error, BadHeaderError):
        return True
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    return isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500 \
        and not isinstance(error, smtplib.SMTPServerDisconnected)
