"""The local mailbox: where mail goes when no mail server is set (development, a first try).

Each message is kept whole, links included, as an ``.eml`` file in
``GUARDSVC_MAILBOX_DIR`` (default: ``mail/`` in the instance folder), a folder
and files only the service's own user may read. ``flask mail show`` prints
them. The log says only that a message was kept and where, never what it says:
logs are read by more people than this machine's owner. Files older than
``GUARDSVC_RETENTION_DAYS`` go as new mail arrives.
"""
import logging
import os
import time
from email import policy
from email.parser import BytesParser
from pathlib import Path

from guardsvc.outbox.transport import build_message

log = logging.getLogger("guardsvc.mail")
SUFFIX = ".eml"


def mailbox_folder(config):
    return Path(config["MAILBOX_DIR"])


def _private_folder(folder):
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def _write_private(path, data):
    """Write ``data`` to ``path`` readable by the owner only, all at once (a reader never sees half a message)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
    os.replace(temporary, path)


def _forget_old(folder, days):
    if days <= 0:
        return
    cutoff = time.time() - days * 24 * 3600
    for path in folder.glob(f"*{SUFFIX}"):
        if path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)


class MailboxTransport:
    """No mail server configured: each message is kept as an owner-only ``.eml`` file for ``flask mail show``."""

    def __init__(self, config):
        self.config = config
        self.folder = mailbox_folder(config)

    def __enter__(self):
        _forget_old(_private_folder(self.folder), self.config["RETENTION_DAYS"])
        return self

    def __exit__(self, *exc):
        return False

    def send(self, outbox_message):
        message = build_message(outbox_message, self.config)
        created = outbox_message.created_at.strftime("%Y%m%d-%H%M%S")
        path = self.folder / f"{created}-{outbox_message.id:07d}{SUFFIX}"
        _write_private(path, message.as_bytes())
        log.info("GUARDSVC_MAIL_SERVER is not set; mail %s kept in the local mailbox as %s "
                 "(read it with: flask --app guardsvc mail show)", outbox_message.id, path)


def kept_messages(config, last=None):
    """The kept messages, oldest first (the ``last`` newest only): ``(path, email.message.EmailMessage)``."""
    folder = mailbox_folder(config)
    paths = sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    if last is not None:
        paths = paths[-last:] if last > 0 else []
    parser = BytesParser(policy=policy.default)
    return [(path, parser.parsebytes(path.read_bytes())) for path in paths]


def readable(message):
    """One kept message as a person reads it in a terminal: its headers, then its plain text."""
    head = "\n".join(f"{name}: {message[name]}" for name in ("Date", "From", "To", "Subject") if message[name])
    body = message.get_body(preferencelist=("plain",))
    return f"{head}\n\n{body.get_content().rstrip() if body is not None else ''}\n"
