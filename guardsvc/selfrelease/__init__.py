"""Self-release: a visitor under a low-risk block frees themselves by a proof of work (contract section 14).

A feature: imports blocks, audit, webhooks and the layers below; the admin desk reads its figures.
"""
