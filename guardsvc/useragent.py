"""A readable device name from a User-Agent string ("Chrome di Windows")."""
import re

from guardsvc import messages

# Order matters: Edge and Opera also say "Chrome"; Chrome also says "Safari".
_BROWSERS = (
    ("Edge", re.compile(r"Edg(e|A|iOS)?/")),
    ("Opera", re.compile(r"OPR/|Opera")),
    ("Samsung Internet", re.compile(r"SamsungBrowser/")),
    ("Firefox", re.compile(r"Firefox/|FxiOS/")),
    ("Chrome", re.compile(r"Chrome/|CriOS/|Chromium/")),
    ("Safari", re.compile(r"Safari/")),
    ("curl", re.compile(r"^curl/")),
    ("Python", re.compile(r"python-requests|python-httpx|Python-urllib")),
)
_SYSTEMS = (
    ("Android", re.compile(r"Android")),
    ("iOS", re.compile(r"iPhone|iPad|iPod")),
    ("Windows", re.compile(r"Windows")),
    ("macOS", re.compile(r"Mac OS X|Macintosh")),
    ("ChromeOS", re.compile(r"CrOS")),
    ("Linux", re.compile(r"Linux|X11")),
)


def _first(table, text):
    return next((name for name, pattern in table if pattern.search(text)), None)


def describe_user_agent(user_agent):
    """``"Chrome di Windows"``, ``"Firefox"``, ``"Linux"``, or None when nothing is recognised."""
    if not user_agent:
        return None
    browser = _first(_BROWSERS, user_agent)
    system = _first(_SYSTEMS, user_agent)
    if browser and system:
        return messages.BROWSER_ON_SYSTEM.format(browser=browser, system=system)
    return browser or system
