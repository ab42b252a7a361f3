"""CrowdSec's bouncer protocol: guardsvc's IP and range blocks as a decision stream for remediation components.

Imports the layers below (storage, web, cli) and other features' services (blocks, accounts).
"""
