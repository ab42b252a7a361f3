"""Where a page may send a person next: only to a path on this site."""
from urllib.parse import urlsplit


def safe_next(target, default="/"):
    """``target`` when it is a local path ("/..." but not "//..." or "/\\..."), else ``default``.

    Browsers treat "//host" and "/\\host" as other sites, and strip tabs and
    newlines before resolving, so anything unusual is refused outright.
    """
    if not isinstance(target, str) or not target.startswith("/"):
        return default
    if target.startswith("//") or "\\" in target or any(ord(ch) < 32 or ord(ch) == 127 for ch in target):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return default
    return target
