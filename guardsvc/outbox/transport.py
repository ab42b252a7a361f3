"""Delivering mail over SMTP (without a mail server, outbox.mailbox keeps it instead).

Messages are built with the standard library's ``email.message.EmailMessage``,
whose policy refuses a header holding a line break (a line break in an address
or a subject would add headers of its own): such a message is never sent.
"""
import smtplib
from email import policy
from email.message import EmailMessage
from email.utils import formataddr, formatdate, parseaddr
from urllib.parse import urlsplit


class BadHeaderError(ValueError):
    """A header of the message holds a line break: no retry can cure it."""


def build_message(outbox_message, config):
    """A MIME message (plain text plus HTML alternative) for one outbox row.

    The Message-ID is derived from the row, so a retried message keeps its id
    and a receiving system can recognise a repeat.
    """
    host = urlsplit(config["BASE_URL"]).hostname or "guardsvc.local"
    created = outbox_message.created_at.strftime("%Y%m%d%H%M%S")
    message = EmailMessage()
    try:
        message["Subject"] = outbox_message.subject
        message["From"] = mail_address(config["MAIL_DEFAULT_SENDER"])
        message["To"] = mail_address(outbox_message.recipient)
    except ValueError as error:
        raise BadHeaderError("line break in a header") from error
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = f"<guardsvc-outbox-{outbox_message.id}-{created}@{host}>"
    message.set_content(outbox_message.body_text)
    if outbox_message.body_html:
        message.add_alternative(outbox_message.body_html, subtype="html")
    return message


def mail_address(text):
    """``Name <local@domain>`` as mail servers take it: an international domain in its ASCII (IDNA) form.

    A line break is refused (ValueError) before the address is parsed, which would quietly drop it.
    """
    if "\r" in text or "\n" in text:
        raise ValueError("line break in an address")
    name, address = parseaddr(text)
    local, at, domain = address.rpartition("@")
    if not (at and local):
        return text
    if not domain.isascii():
        domain = domain.encode("idna").decode("ascii")
    return formataddr((name, f"{local}@{domain}"))


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
        self.connection.sendmail(parseaddr(message["From"])[1], [parseaddr(message["To"])[1]],
                                 message.as_bytes(policy=policy.SMTP))


def is_permanent(error):
    """Failures that no retry can cure: a malformed message, or every recipient refused with 5xx."""
    if isinstance(error, BadHeaderError):
        return True
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    return isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500 \
        and not isinstance(error, smtplib.SMTPServerDisconnected)
