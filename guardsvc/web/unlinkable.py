"""Text that people chose, shown in an e-mail exactly as written but never as a link."""
import re

from markupsafe import Markup, escape

# Mail programs turn anything that looks like a host name or an address into a link.
# A zero-width joiner after each of these characters keeps the text as it reads
# but no longer as a name they recognise.
# HTML escaping never writes one of them, so they are found the same after escaping.
_LINK_PUNCTUATION = re.compile(r"[.@:/\\]")
ZERO_WIDTH_JOINER = "\u200d"


def unlinkable(text):
    """HTML for ``text`` that shows it exactly but that no mail program will turn into a link."""
    if text is None:
        return Markup("")
    joined = _LINK_PUNCTUATION.sub(lambda match: match.group() + ZERO_WIDTH_JOINER, str(escape(str(text))))
    return Markup('<span class="data">') + Markup(joined) + Markup("</span>")
