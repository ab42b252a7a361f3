"""The HTTP edge shared by every door: doors and what a JSON door declares (operations), error
rendering, who is calling (address, device), cookies, headers, links, JSON I/O, schema fields and the
grammar of the addresses they read,
listings. Imports storage and the base modules only.
"""
