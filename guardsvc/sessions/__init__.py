"""Server-side sessions: the browser cookie only names a record kept here."""
