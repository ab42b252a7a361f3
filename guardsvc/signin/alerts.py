"""The security alert e-mail for a sign-in from an unfamiliar device."""
from flask import current_app

from guardsvc.outbox.service import queue_mail
from guardsvc.pages.formatting import human_time
from guardsvc.trust.useragent import describe_user_agent

ALERT_SUBJECT = "Peringatan keamanan: akun guardsvc Anda dimasuki dari perangkat baru"


def queue_signin_alert(user, event):
    """Queue the alert for ``event`` to the account's address, in the sign-in transaction."""
    base = current_app.config["BASE_URL"]
    return queue_mail(
        "signin_alert", user.email, ALERT_SUBJECT, "signin_alert",
        name=user.name, email=user.email, when=human_time(event.created_at),
        ip_address=event.ip_address,
        device=describe_user_agent(event.user_agent) or "Perangkat tidak dikenali",
        account_url=f"{base}/akun", password_url=f"{base}/akun/kata-sandi")
