"""Reading a posted form with the same marshmallow schema the JSON door uses."""
from guardsvc.web.errors import ValidationFailed
from guardsvc.web.schema_fields import Flag, load_or_raise


def load_form(schema, form, fields, *, blank_means_unset=()):
    """``(data, errors, values)``: loaded data or field errors, plus what was typed.

    ``values`` always holds the raw text of ``fields`` so a page that shows the
    form again keeps every character the person typed. A field named in
    ``blank_means_unset`` (a number box, say) left empty is not sent to the
    schema at all, so its default applies instead of "not a number".
    """
    values = {name: form.get(name, "") for name in fields}
    sent = {name: Flag.from_form(value) if isinstance(schema.fields.get(name), Flag) else value
            for name, value in values.items() if not (name in blank_means_unset and not value.strip())}
    try:
        return load_or_raise(schema, sent), None, values
    except ValidationFailed as failure:
        return None, failure.errors, values
