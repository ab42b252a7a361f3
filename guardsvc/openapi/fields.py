"""What the project's own marshmallow fields, and rules across them, look like in the API document."""
from marshmallow import fields

from guardsvc.web import ip_grammar
from guardsvc.web.identity import DEVICE_ID_RE
from guardsvc.web.schema_fields import Email, EmailCode, SecondFactorCode, Text, Timestamp

# clock.isoformat: UTC, always six fraction digits and a trailing Z (contract section 1).
TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$"
DEVICE_ID_PATTERN = "^" + DEVICE_ID_RE.pattern.removeprefix(r"\A").removesuffix(r"\Z") + "$"
# schema_fields.Text refuses control characters (newlines and tabs allowed in multi-line text)
# and, when required, a value that is blank once trimmed.
_CONTROL = {False: r"\x00-\x1f\x7f", True: r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"}
# The codes: what is left once trimmed is ASCII letters, digits, spaces and dashes (a TOTP or
# recovery code), or eight digits among spaces and dashes (an e-mailed code); blank is no code.
SECOND_FACTOR_CODE_PATTERN = r"^\s*[0-9A-Za-z -]*\s*$"
EMAIL_CODE_PATTERN = r"^\s*(?:[ -]*(?:[0-9][ -]*){8})?\s*$"


def describe_custom_fields(plugin):
    """Teach apispec the types, formats and patterns of guardsvc's fields."""
    plugin.map_to_openapi_type(Timestamp, "string", "date-time")
    plugin.map_to_openapi_type(Email, "string", "email")
    plugin.converter.add_attribute_function(guardsvc_field_properties)


def guardsvc_field_properties(self, field, ret=None, **kwargs):
    """Extra JSON schema properties of one field (bound to apispec's converter)."""
    if callable(getattr(field, "json_schema", None)):
        return field.json_schema()
    if type(field) is Text:
        allowed = f"[^{_CONTROL[field.multiline]}]*"
        visible = rf"[^\s{_CONTROL[field.multiline]}]"
        return {"pattern": f"^{allowed}{visible}{allowed}$" if field.required else f"^{allowed}$"}
    if isinstance(field, SecondFactorCode):
        return {"pattern": SECOND_FACTOR_CODE_PATTERN}
    if isinstance(field, EmailCode):
        return {"pattern": EMAIL_CODE_PATTERN}
    if isinstance(field, Timestamp):
        return {"pattern": TIMESTAMP_PATTERN}
    if isinstance(field, fields.Nested) and field.allow_none and "anyOf" in (ret or {}):
        # apispec writes "any object, or the schema"; the truth is "null, or the schema".
        return {"anyOf": [branch for branch in ret["anyOf"] if "$ref" in branch], "nullable": True}
    return {}


def rules_schema(schema_cls, properties):
    """JSON Schema of the rules across fields of ``schema_cls`` (``schema_fields.Given``), for its component.

    Each rule is an ``anyOf`` of branches a generator can follow rather than filter: exactly one given
    (one branch each: this one given, the others not), at least one (one branch each: this one
    given), at most one of two (one branch each: this one not given). A field is given when it is
    there and not null, and a text field (blank is no value) holds more than spaces: its own pattern
    without the blank, so that the branch is as strong as the field.
    """
    fields_by_key = {field.data_key or name: field for name, field in schema_cls().load_fields.items()}
    said = []
    for rule in schema_cls.rules:
        names = rule.names
        if (rule.least, rule.most) == (1, 1):
            branches = [_branch(fields_by_key, properties, given=[name],
                                not_given=[other for other in names if other != name]) for name in names]
        elif (rule.least, rule.most) == (1, None):
            branches = [_branch(fields_by_key, properties, given=[name]) for name in names]
        elif (rule.least, rule.most) == (0, 1) and len(names) == 2:
            branches = [_branch(fields_by_key, properties, not_given=[name]) for name in names]
        else:
            raise ValueError(f"no JSON Schema for giving {rule.least}-{rule.most} of {names}")
        said.append({"anyOf": branches})
    if len(said) == 1:
        return said[0]
    return {"allOf": said} if said else {}


_BLANK = f"^[{ip_grammar.class_of(ip_grammar.WHITESPACE)}]*$"


def _branch(fields_by_key, properties, *, given=(), not_given=()):
    """``given`` are there with a value; ``not_given`` are absent, null or (text read blank) only spaces."""
    branch = {"properties": {}}
    if given:
        branch["required"] = list(given)
    for name in given:
        if "type" not in properties.get(name, {}):  # null would count as given
            raise ValueError(f"a rule names {name!r}, whose type the document does not say")
        value = {"type": properties[name]["type"]}
        if _reads_blank(fields_by_key[name]):
            value["pattern"] = fields_by_key[name].json_schema(blank=False)["pattern"]
        branch["properties"][name] = value
    for name in not_given:
        branch["properties"][name] = ({"type": "string", "nullable": True, "pattern": _BLANK}
                                      if _reads_blank(fields_by_key[name]) else {"nullable": True, "enum": [None]})
    return branch


def _reads_blank(field):
    """A text field whose blank is no value, and which says its pattern with and without the blank."""
    return isinstance(field, Text) and callable(getattr(field, "json_schema", None)) and not field.required
