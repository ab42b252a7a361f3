"""Several nodes on one database (contract section 17): each node reports itself, with fingerprints of the
settings every node must share, and ``flask nodes``, the desk and ``/metrics`` show the fleet and where it
disagrees. A feature: imports storage, web, cli and the base modules.
"""
