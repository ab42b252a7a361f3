"""Retention of personal data: the machinery the features' own rules run in (each feature's
``retention.py``, registered in its ``feature.py``), ``flask purge`` and the worker's purge round.
Imports cli, storage and the base modules, never a feature.
"""
