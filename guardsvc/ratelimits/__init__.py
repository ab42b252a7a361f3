"""Rate limits and their stores (the machine's LMDB file, memory, Redis), one bucket per operation
shared by every door. Imports web, storage and the base modules only.
"""
