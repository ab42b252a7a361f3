"""Paginated lists and text search, shared by every administrator list."""
from dataclasses import dataclass

from marshmallow import fields
from sqlalchemy import func, literal, or_, select

from guardsvc import messages
from guardsvc.extensions import db
from guardsvc.web.schema_fields import BaseSchema, Integer, Text, load_or_raise

MAX_PER_PAGE = 100
DEFAULT_PER_PAGE = 20
# Lists that may grow without end count this far and no further (shown as "10.000+"):
# counting a million rows on every page view costs more than the page itself.
COUNT_CAP = 10_000


class PageQuerySchema(BaseSchema):
    """``page`` (from 1) and ``per_page`` (1-100) of a list request."""

    page = Integer(strict=False, load_default=1)
    per_page = Integer(strict=False, maximum=MAX_PER_PAGE, load_default=DEFAULT_PER_PAGE)


class SearchQuerySchema(PageQuerySchema):
    """A page of a list, narrowed by free text ``q``."""

    q = Text(max_length=200, load_default=None, blank_as_none=True, allow_none=True)


class PaginationSchema(BaseSchema):
    """The ``pagination`` object of every list answer (see Page.as_dict)."""

    page = fields.Integer(required=True)
    per_page = fields.Integer(required=True)
    total = fields.Integer(required=True)
    pages = fields.Integer(required=True)
    total_capped = fields.Boolean(metadata={
        "description": "Lists that may grow without end (tickets) only: true when `total` is the "
                       "counting limit (10000) and there are at least that many; `pages` then "
                       "reaches only that far (filter or search to go further)."})


def load_query(schema, args, keep_blank=False):
    """The query string loaded by ``schema`` (422 on a bad value), blank values dropped (an empty filter is
    no filter) unless ``keep_blank``.

    Every parameter the schema declares takes one value: one given more than once (``?page=1&page=2``)
    is refused (422) rather than read in part. Parameters it does not declare are ignored, however often.
    """
    declared = {field.data_key or name for name, field in schema.load_fields.items()}
    twice = sorted(key for key, values in args.lists() if key in declared and len(values) > 1)
    if twice:
        from guardsvc.web.errors import ValidationFailed

        raise ValidationFailed({key: [messages.FIELD_GIVEN_TWICE] for key in twice})
    return load_or_raise(schema, {key: value for key, value in args.items() if keep_blank or value.strip()})


@dataclass(frozen=True)
class Page:
    """One page of a list, with what a pager needs."""

    items: list
    page: int
    per_page: int
    total: int
    total_capped: bool | None = None  # None: a list that counts everything

    @property
    def pages(self):
        return (self.total + self.per_page - 1) // self.per_page

    @property
    def has_previous(self):
        return self.page > 1

    @property
    def has_next(self):
        return self.page < self.pages

    def as_dict(self):
        pagination = {"page": self.page, "per_page": self.per_page, "total": self.total, "pages": self.pages}
        if self.total_capped is not None:
            pagination["total_capped"] = self.total_capped
        return pagination


def paginate(query, page=1, per_page=DEFAULT_PER_PAGE, count_cap=None):
    """Run an ordered ``select`` for one page and count the rows it would return.

    With ``count_cap`` the count stops there (``Page.total_capped``), and so do
    the pages: a page past the cap is empty without asking the database to
    skip that many rows. Filters and search reach further.
    """
    offset = (page - 1) * per_page
    if count_cap is None:
        total = db.session.scalar(select(func.count()).select_from(query.order_by(None).subquery()))
    else:
        total = db.session.scalar(select(capped_count(query, count_cap)))
    capped = None if count_cap is None else total >= count_cap
    if capped and offset >= count_cap:
        return Page([], page, per_page, total, capped)
    items = db.session.scalars(query.limit(per_page).offset(offset)).all()
    return Page(list(items), page, per_page, total, capped)


def capped_count(query, cap=None):
    """A scalar subquery: how many rows ``query`` returns, counting no further than ``cap`` (``COUNT_CAP``)."""
    cap = COUNT_CAP if cap is None else cap
    rows = query.with_only_columns(literal(1), maintain_column_froms=True).order_by(None).limit(cap)
    return select(func.count()).select_from(rows.subquery()).scalar_subquery()


def contains_text(q, *columns):
    """Case-insensitive "contains ``q``" over any of ``columns``, LIKE wildcards taken literally."""
    escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    return or_(*(column.ilike(pattern, escape="\\") for column in columns))
