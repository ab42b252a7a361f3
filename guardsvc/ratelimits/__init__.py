"""Rate limits and their stores (memory, Redis), one bucket per operation shared by every door.
Imports web, storage and the base modules only.
"""
