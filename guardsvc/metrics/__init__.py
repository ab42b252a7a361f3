"""Prometheus metrics: the counters features increment, request latency, and ``/metrics`` for a scraper.
Imports web, storage and the base modules only; the factory hands it the gauges features compute.
"""
