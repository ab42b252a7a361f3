"""Paginated lists and text search, shared by every administrator list."""
from dataclasses import dataclass

from marshmallow import fields
from sqlalchemy import func, or_, select

from guardsvc.extensions import db
from guardsvc.schema_fields import BaseSchema, Integer, Text

MAX_PER_PAGE = 100
DEFAULT_PER_PAGE = 20


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


def query_args(args):
    """Query-string arguments as a dict, blank values dropped (an empty filter is no filter)."""
    return {key: value for key, value in args.items() if value.strip()}


@dataclass(frozen=True)
class Page:
    """One page of a list, with what a pager needs."""

    items: list
    page: int
    per_page: int
    total: int

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
        return {"page": self.page, "per_page": self.per_page, "total": self.total, "pages": self.pages}


def paginate(query, page=1, per_page=DEFAULT_PER_PAGE):
    """Run an ordered ``select`` for one page and count every row it would return."""
    total = db.session.scalar(select(func.count()).select_from(query.order_by(None).subquery()))
    items = db.session.scalars(query.limit(per_page).offset((page - 1) * per_page)).all()
    return Page(list(items), page, per_page, total)


def contains_text(q, *columns):
    """Case-insensitive "contains ``q``" over any of ``columns``, LIKE wildcards taken literally."""
    escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    return or_(*(column.ilike(pattern, escape="\\") for column in columns))
