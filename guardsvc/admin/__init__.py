"""Administrator doors (JSON and pages) over the appeals, blocks and audit services.
Imports every feature below it and the layers below those; only the factory imports it.
"""
