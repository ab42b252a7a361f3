"""The HTML door's shared parts: landing page, layout helpers, form handling."""
