"""Administrator doors (JSON and pages) over the appeals, blocks and audit services."""
