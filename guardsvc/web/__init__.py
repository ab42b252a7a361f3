"""The HTTP edge shared by every door: doors and what a JSON door declares (operations), error
rendering, who is calling (address, device), cookies, headers, links, JSON I/O, schema fields,
listings. Imports storage and the base modules only.
"""
