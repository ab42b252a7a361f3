"""Marshmallow building blocks shared by every feature's schemas.

All messages are Indonesian; strings are trimmed and refused when they hold
control characters (PostgreSQL cannot even store NUL).
"""
import re

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema
from marshmallow.decorators import POST_DUMP, PRE_DUMP
from sqlalchemy.engine import Row

from guardsvc import messages
from guardsvc.stored_texts import readable
from guardsvc.storage import clock
from guardsvc.web import ip_grammar
from guardsvc.web.identity import DEVICE_ID_RE, is_valid_device_id, normalize_ip
from guardsvc.web.row_ids import ROW_ID_MAX

# Lone UTF-16 surrogates are no characters: UTF-8 cannot encode them, so no
# database, hash or page could take them.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_CONTROL_SINGLE_LINE = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# A TOTP code or a recovery code as typed: ASCII digits and letters, spaces, dashes.
_CODE = re.compile(r"\A[0-9A-Za-z -]+\Z", re.ASCII)
# Standard base64 (RFC 4648 section 4) with its padding: what base64.b64decode reads without skipping.
BASE64 = "(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
BASE64_RE = re.compile(BASE64)


def has_lone_surrogate(text):
    """True when ``text`` holds a UTF-16 surrogate on its own (no character at all)."""
    return bool(_SURROGATE.search(text))


class Given:
    """A rule across fields: how many of ``names`` a request gives a value (not null, not blank).

    From ``least`` to ``most`` (None: no bound); else ``error``, under the first name. A schema
    lists its rules in ``rules`` and applies them after its fields; the API document says each in
    JSON Schema (``guardsvc.openapi.fields.rules_schema``), so a client knows them beforehand.
    """

    def __init__(self, *names, least=0, most=None, error):
        self.names, self.least, self.most, self.error = names, least, most, error

    def holds(self, data):
        given = sum(data.get(name) is not None for name in self.names)
        return given >= self.least and (self.most is None or given <= self.most)


class BaseSchema(Schema):
    """Unknown fields are ignored; shape errors speak Indonesian; ``rules`` across fields (``Given``) hold."""

    rules = ()

    class Meta:
        unknown = EXCLUDE

    error_messages = {
        "type": messages.BAD_JSON,
        "unknown": messages.FIELD_UNKNOWN,
        "required": messages.FIELD_REQUIRED,
        "null": messages.FIELD_REQUIRED,
        "validator_failed": messages.VALIDATION_FAILED,
    }

    @validates_schema
    def _rules_hold(self, data, **kwargs):
        errors = {}
        for rule in self.rules:
            if not rule.holds(data):
                errors.setdefault(rule.names[0], []).append(rule.error)
        if errors:
            raise ValidationError(errors)

    def dump(self, obj, *, many=None):
        """marshmallow's dump, with one object of plain attribute fields read straight off it.

        For each field marshmallow looks the value up through its accessor (a
        key first, a dotted path, a default for what is missing) before
        formatting it, and that was most of the cost of dumping the answers of
        the hot paths (a status, a submitted ticket, a trusted device). An
        object (or a database row) is read with ``getattr`` here, which is what
        marshmallow ends up doing for it, and each field formats its value as
        before. A mapping, a list, a schema with dump hooks or with a field
        that computes its value or names a path, and an object lacking an
        attribute go through marshmallow.
        """
        plan = self._plain_plan()
        if plan is None or (self.many if many is None else many) or (
                hasattr(obj, "__getitem__") and not isinstance(obj, Row)):
            return super().dump(obj, many=many)
        try:
            return {key: format_(getattr(obj, attribute), attribute, obj) for key, attribute, format_ in plan}
        except AttributeError:
            return super().dump(obj, many=many)

    def _plain_plan(self):
        """``((key, attribute, format), ...)`` when every field is a plain attribute, else None (built once).

        Reads marshmallow's private ``Field._CHECK_ATTRIBUTE`` and ``Schema._hooks``
        (tests/project/test_dependency_reaches.py fails when they change).
        """
        try:
            return self.__plain_plan
        except AttributeError:
            pass
        plan = []
        for name, field in self.dump_fields.items():
            attribute = field.attribute or name
            if not field._CHECK_ATTRIBUTE or "." in attribute or self._hooks[PRE_DUMP] or self._hooks[POST_DUMP]:
                plan = None
                break
            plan.append((field.data_key if field.data_key is not None else name, attribute, field._serialize))
        self.__plain_plan = None if plan is None else tuple(plan)
        return self.__plain_plan


class Text(fields.String):
    """A trimmed string; blank counts as missing; control characters refused.

    ``multiline`` allows newlines and tabs (for free text like a reason).
    ``blank_as_none`` turns an optional blank value into None instead of "".
    """

    default_error_messages = {
        "invalid": messages.FIELD_NOT_STRING,
        "invalid_utf8": messages.FIELD_NOT_STRING,
        "required": messages.FIELD_REQUIRED,
        "null": messages.FIELD_REQUIRED,
        "blank": messages.FIELD_REQUIRED,
        "bad_chars": messages.FIELD_BAD_CHARS,
    }

    # The typed fields below (addresses, codes, ids, choices) are trimmed first: their documented
    # patterns allow whitespace around the value (guardsvc.openapi.fields).
    trims_before_checking = False
    # The length limit counts what was sent, spaces included (the document's maxLength does), not
    # only what is kept.
    limits_sent_text = False

    def __init__(self, *, max_length=None, multiline=False, blank_as_none=False, **kwargs):
        validators = list(kwargs.pop("validate", []) or [])
        # A blank value is never validated (it becomes None or ""): its own length is checked here.
        self._blank_limit = None
        if max_length is not None:
            self._blank_limit = validate.Length(max=max_length, error=messages.FIELD_TOO_LONG)
            validators.insert(0, self._blank_limit)
        super().__init__(validate=validators, **kwargs)
        self.multiline = multiline
        self.blank_as_none = blank_as_none

    def _validate(self, value):
        if value is not None:  # a blank optional value became None: nothing to check
            super()._validate(value)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if self.limits_sent_text and self._blank_limit is not None:
            self._blank_limit(text)
        if self.multiline:
            text = text.replace("\r\n", "\n")
        if self.trims_before_checking:
            text = text.strip()
        # Plain text is checked before trimming, as the API document's pattern says: a tab or newline
        # around a single-line value is refused, not quietly cut off.
        pattern = _CONTROL if self.multiline else _CONTROL_SINGLE_LINE
        if pattern.search(text):
            raise self.make_error("bad_chars")
        text = text.strip()
        if not text:
            if self.required:
                raise self.make_error("blank")
            if self._blank_limit is not None:
                self._blank_limit(value)  # 65 spaces are still more than 64 characters
            return None if self.blank_as_none else text
        return text


class _EmailForm(validate.Email):
    """marshmallow's e-mail check, its message left to be written in the request's language.

    marshmallow formats its message before it checks (a catalogue look-up on every accepted
    address); the message has no ``{input}`` to fill, so it is kept as the catalogue's lazy string,
    as every other field's message is, and written only when a refusal is.
    """

    def _format_error(self, value):
        return [self.error]  # a list: a lazy string alone would be taken for a sequence of messages


class Email(Text):
    """A trimmed e-mail address."""
    trims_before_checking = True

    default_error_messages = {"invalid_email": messages.FIELD_BAD_EMAIL}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(_EmailForm(error=messages.FIELD_BAD_EMAIL))


class IpAddress(Text):
    """An IPv4 or IPv6 address, normalized (a zone id after ``%`` is dropped)."""
    trims_before_checking = True
    limits_sent_text = True

    default_error_messages = {"bad_ip": messages.FIELD_BAD_IP}

    def json_schema(self, blank=None):
        """What the API document says of it (guardsvc.openapi.fields): the one grammar of addresses; only
        spaces too (no address) when it is optional, or as ``blank`` says."""
        blank = not self.required if blank is None else blank
        return {"description": ADDRESS_DESCRIPTION, "pattern": address_pattern(blank=blank)}

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if text is None or text == "":
            return text
        try:
            return normalize_ip(text)
        except ValueError as exc:
            raise self.make_error("bad_ip") from exc


ADDRESS_DESCRIPTION = ("Alamat IPv4 atau IPv6 (spasi di tepi diabaikan, juga id zona setelah `%`): "
                       "oktet tanpa nol di depan, IPv6 dengan `::` dan IPv4 di ujungnya diterima.")


def address_pattern(*, blank=False, spaces=ip_grammar.WHITESPACE):
    """The pattern of an address field (``IpAddress``), ``spaces`` around it; ``blank``: or spaces only.

    The X-Local-Ip header is read the same way; HTTP keeps no spaces around a header's value.
    """
    return ip_grammar.text_pattern(ip_grammar.ADDRESS, spaces=spaces, then=ip_grammar.ZONE, blank=blank)


class Base64(Text):
    """Standard base64 text, exactly (no spaces around it); ``error`` is what a refusal says."""

    def __init__(self, *, error, **kwargs):
        super().__init__(**kwargs)
        self.error_messages["bad_base64"] = error

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and not BASE64_RE.fullmatch(value):
            raise self.make_error("bad_base64")
        return super()._deserialize(value, attr, data, **kwargs)

    def json_schema(self):
        """What the API document says of it (guardsvc.openapi.fields)."""
        return {"pattern": f"^{BASE64}$", **({"minLength": 1} if self.required else {})}


class DeviceId(Text):
    """A device id as carried by ``X-Device-Id``."""
    trims_before_checking = True

    default_error_messages = {"bad_device": messages.FIELD_BAD_DEVICE_ID}

    def json_schema(self, blank=None):
        """What the API document says of it (guardsvc.openapi.fields): spaces around it; only spaces too
        (no device) when it is optional, or as ``blank`` says."""
        device = DEVICE_ID_RE.pattern.removeprefix(r"\A").removesuffix(r"\Z")
        blank = not self.required if blank is None else blank
        return {"pattern": ip_grammar.text_pattern(device, spaces=ip_grammar.WHITESPACE, blank=blank)}

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if text and not is_valid_device_id(text):
            raise self.make_error("bad_device")
        return text


class SecondFactorCode(Text):
    """A six-digit TOTP code or a recovery code: ASCII only (full-width digits are no code)."""
    trims_before_checking = True

    default_error_messages = {"bad_code": messages.FIELD_BAD_CODE}

    def __init__(self, **kwargs):
        super().__init__(max_length=32, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if text and not _CODE.match(text):
            raise self.make_error("bad_code")
        return text


class EmailCode(Text):
    """The 8-digit code of an e-mail (``1234 5678`` and ``1234-5678`` read as ``12345678``): ASCII digits only."""
    trims_before_checking = True

    default_error_messages = {"bad_email_code": messages.FIELD_BAD_EMAIL_CODE}

    def __init__(self, **kwargs):
        super().__init__(max_length=32, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if text is None:
            return None
        digits = re.sub(r"[ -]", "", text)
        if not re.fullmatch(r"[0-9]{8}", digits, re.ASCII):
            raise self.make_error("bad_email_code")
        return digits


class Choice(Text):
    """One of a fixed set of words."""
    trims_before_checking = True

    def __init__(self, choices, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(validate.OneOf(
            choices, error=messages.FIELD_BAD_CHOICE.format(choices=", ".join(choices))))


class Timestamp(fields.Field):
    """Dump-only UTC timestamp: ``2026-11-22T08:50:00.123456Z``; None stays null."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(**kwargs)

    def _serialize(self, value, attr, obj, **kwargs):
        return clock.isoformat(value)


class Flag(fields.Boolean):
    """A yes/no in a JSON body: ``true`` or ``false`` only (``0``, ``""`` or ``"yes"`` are refused, as the
    API document says). A form's checkbox text becomes a boolean in the page door (``pages.forms``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("error_messages", {"invalid": messages.FIELD_BAD_BOOLEAN, "required": messages.FIELD_REQUIRED,
                                             "null": messages.FIELD_BAD_BOOLEAN})
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value

    @classmethod
    def from_form(cls, text):
        """A checkbox's text as a boolean; text that says neither stays as it is (and is refused)."""
        lowered = text.strip().lower()
        if lowered in fields.Boolean.truthy:
            return True
        if lowered in fields.Boolean.falsy:
            return False
        return text


INT32_MAX = ROW_ID_MAX


def Integer(*, strict=True, minimum=1, maximum=INT32_MAX, **kwargs):
    """An integer field with Indonesian messages, bounded so the database never overflows.

    ``strict=False`` accepts digit strings (query parameters).
    """
    kwargs.setdefault("error_messages", {"invalid": messages.FIELD_BAD_INTEGER,
                                         "required": messages.FIELD_REQUIRED,
                                         "null": messages.FIELD_REQUIRED,
                                         "too_large": messages.FIELD_OUT_OF_RANGE})
    kwargs.setdefault("validate", validate.Range(min=minimum, max=maximum, error=messages.FIELD_OUT_OF_RANGE))
    return fields.Integer(strict=strict, **kwargs)


def Nullable(field_class=fields.String, **kwargs):
    """A dump field that may be null (documented as nullable in the API document)."""
    return field_class(allow_none=True, **kwargs)


class _StoredText(fields.String):
    """A text the service wrote on people's behalf (guardsvc.stored_texts), in the reader's language."""

    def _serialize(self, value, attr, obj, **kwargs):
        return super()._serialize(readable(value), attr, obj, **kwargs)


def StoredText(**kwargs):
    """A nullable dump field for a text the service may have written itself (a lifted block's reason)."""
    return Nullable(_StoredText, **kwargs)


def load_or_raise(schema, data):
    """Validate ``data`` with ``schema``; raise the domain's 422 on failure."""
    from guardsvc.web.errors import ValidationFailed

    try:
        return schema.load(data)
    except ValidationError as exc:
        raise ValidationFailed(_flatten(exc.messages)) from exc


def _flatten(errors):
    """Make every entry a list of strings (marshmallow may nest dicts)."""
    flat = {}
    for key, value in errors.items():
        if isinstance(value, dict):
            flat[key] = [str(m) for sub in value.values() for m in (sub if isinstance(sub, list) else [sub])]
        elif isinstance(value, list):
            flat[key] = [str(m) for m in value]
        else:
            flat[key] = [str(value)]
    return flat
