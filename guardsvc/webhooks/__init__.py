"""Signed webhooks (Standard Webhooks) and the fail2ban unban hook: outward calls queued in the
transaction of what they report, carried out later by the worker with retries.

Other features call it (appeals, blocks, signin); it imports none of them, only the layers below
(storage, web, cli).
"""
