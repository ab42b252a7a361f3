"""A readable device name from a User-Agent string ("Chrome di Windows").

The parsing is ua-parser's (the maintained uap-core rules); this module only
chooses the words people read. Browsers send the same few strings again and
again, so answers are cached.
"""
from functools import lru_cache

from ua_parser import parse

from guardsvc import messages

# uap-core's names that read oddly on a page, and the words people know them by.
_BROWSER_NAMES = {
    "Chrome Mobile": "Chrome", "Chrome Mobile iOS": "Chrome", "Chrome Mobile WebView": "Chrome",
    "HeadlessChrome": "Chrome", "Firefox Mobile": "Firefox", "Firefox iOS": "Firefox",
    "Mobile Safari": "Safari", "Mobile Safari UI/WKWebView": "Safari", "Edge Mobile": "Edge",
    "Opera Mobile": "Opera", "Python Requests": "Python", "Python-urllib": "Python",
}
_SYSTEM_NAMES = {"Mac OS X": "macOS", "Chrome OS": "ChromeOS"}
# Longest User-Agent worth parsing: the rest is noise, and a bound keeps the regexes cheap.
_MAX_LENGTH = 512


@lru_cache(maxsize=1024)
def _families(user_agent):
    result = parse(user_agent[:_MAX_LENGTH])
    browser = result.user_agent.family if result.user_agent else None
    system = result.os.family if result.os else None
    return (_BROWSER_NAMES.get(browser, browser) if browser != "Other" else None,
            _SYSTEM_NAMES.get(system, system) if system != "Other" else None)


def browser_and_system(user_agent):
    """``("Chrome", "Windows")``: the names alone, for machines (either may be None)."""
    return _families(user_agent) if user_agent else (None, None)


def describe_user_agent(user_agent):
    """``"Chrome di Windows"``, ``"Firefox"``, ``"Linux"``, or None when nothing is recognised."""
    browser, system = browser_and_system(user_agent)
    if browser and system and browser != system:
        return messages.BROWSER_ON_SYSTEM.format(browser=browser, system=system)
    return browser or system
