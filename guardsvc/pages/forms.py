"""Reading a posted form with the same marshmallow schema the JSON door uses."""
from guardsvc.errors import ValidationFailed
from guardsvc.schema_fields import load_or_raise


def load_form(schema, form, fields):
    """``(data, errors, values)``: loaded data or field errors, plus what was typed.

    ``values`` always holds the raw text of ``fields`` so a page that shows the
    form again keeps every character the person typed.
    """
    values = {name: form.get(name, "") for name in fields}
    try:
        return load_or_raise(schema, values), None, values
    except ValidationFailed as failure:
        return None, failure.errors, values
