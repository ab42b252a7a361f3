"""The security alert e-mail for a sign-in from an unfamiliar device."""
from guardsvc import messages
from guardsvc.web.humantime import human_time
from guardsvc.web.links import external_url
from guardsvc.outbox.service import queue_mail
from guardsvc.web.useragent import describe_user_agent


def queue_signin_alert(user, event):
    """Queue the alert for ``event`` to the account's address, in the sign-in transaction."""
    return queue_mail(
        "signin_alert", user.email, messages.SIGNIN_ALERT_SUBJECT, "signin_alert",
        name=user.name, email=user.email, when=human_time(event.created_at),
        ip_address=event.ip_address,
        device=describe_user_agent(event.user_agent) or messages.UNRECOGNISED_DEVICE,
        account_url=external_url("account_pages.account"),
        password_url=external_url("security_pages.password_form"))
