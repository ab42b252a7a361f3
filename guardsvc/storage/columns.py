"""Small helpers for model definitions."""


def one_of(column, values):
    """SQL of a check constraint: ``column`` holds one of ``values`` (``role IN ('user', 'admin')``).

    The values are the code's own constants (plain words), never input.
    """
    quoted = ", ".join(f"'{value}'" for value in values)
    return f"{column} IN ({quoted})"
