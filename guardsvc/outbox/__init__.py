"""E-mail that is never lost: queued in the database, delivered over SMTP with retries."""
