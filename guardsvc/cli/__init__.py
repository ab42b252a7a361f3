"""The command-line door's plumbing: clean errors, list output, long-running loops.
Imports web (for domain errors), storage and the base modules only.
"""
