"""What the project's own marshmallow fields look like in the API document."""
from marshmallow import fields

from guardsvc.web.identity import DEVICE_ID_RE
from guardsvc.web.schema_fields import DeviceId, Email, EmailCode, IpAddress, SecondFactorCode, Text, Timestamp

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
    if isinstance(field, DeviceId):
        return {"pattern": DEVICE_ID_PATTERN}
    if isinstance(field, IpAddress):
        forms = [{"format": "ipv4"}, {"format": "ipv6"}]
        if field.blank_as_none:  # blank is no address (null)
            forms.append({"pattern": r"^\s*$"})
        return {"description": "Alamat IPv4 atau IPv6.", "anyOf": forms}
    if isinstance(field, fields.Nested) and field.allow_none and "anyOf" in (ret or {}):
        # apispec writes "any object, or the schema"; the truth is "null, or the schema".
        return {"anyOf": [branch for branch in ret["anyOf"] if "$ref" in branch], "nullable": True}
    return {}
