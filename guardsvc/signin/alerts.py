"""The security alert for a sign-in from an unfamiliar device: an e-mail, and the ``signin.new_device`` webhook.

Both name where the sign-in came from when the GeoIP database knows the
address, and say so when the country is new to the account (signin/verification.py).
"""
from guardsvc import messages
from guardsvc.places.names import label_of
from guardsvc.storage.clock import isoformat
from guardsvc.web.humantime import human_time
from guardsvc.web.links import external_url
from guardsvc.web.locale import in_language
from guardsvc.outbox.service import queue_mail
from guardsvc.web.useragent import browser_and_system, describe_user_agent
from guardsvc.webhooks.service import queue_event


def queue_signin_alert(user, event, novelty):
    """Queue the alert for ``event`` to the account's address, and the webhook event, in the sign-in transaction.

    ``novelty``: where the sign-in came from and whether that country is new to the account.
    """
    queue_event("signin.new_device", lambda: new_device_data(user, event, novelty))
    with in_language(user.language):  # the holder's language, not the one of whoever signed in
        place = label_of(novelty.place)
        subject = (messages.SIGNIN_ALERT_NEW_COUNTRY_SUBJECT.format(place=place) if novelty.new_country
                   else messages.SIGNIN_ALERT_SUBJECT)
        return queue_mail(
            "signin_alert", user.email, subject, "signin_alert",
            name=user.name, email=user.email, when=human_time(event.created_at),
            ip_address=event.ip_address, place=place or messages.PLACE_UNKNOWN, new_country=novelty.new_country,
            device=describe_user_agent(event.user_agent) or messages.UNRECOGNISED_DEVICE,
            account_url=external_url("account_pages.account"),
            password_url=external_url("security_pages.password_form"))


def new_device_data(user, event, novelty):
    """The ``data`` of ``signin.new_device``: the account by id (not its address), when, from where, which browser."""
    browser, system = browser_and_system(event.user_agent)
    return {"account_id": user.id, "signed_in_at": isoformat(event.created_at), "ip_address": event.ip_address,
            "country": event.country, "city": event.city, "new_country": novelty.new_country,
            "browser": browser, "system": system, "login_event_id": event.id}
