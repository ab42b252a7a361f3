"""Geometry of the small inline SVG charts: tickets per day, stacked by outcome; pending tickets by age."""
from dataclasses import dataclass

from guardsvc.appeals.statuses import APPROVED, PENDING, REJECTED

OUTCOMES = (APPROVED, REJECTED, PENDING)  # bottom to top
WIDTH, HEIGHT, GAP, AXIS = 560, 160, 4, 20
COUNT_ROOM = 16  # above a column of the age chart: its count


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    status: str
    count: int


@dataclass(frozen=True)
class Column:
    day: object
    label: str
    x: float
    total: int
    bars: list


def stacked_columns(series):
    """``[(date, {status: n})]`` -> columns of stacked bars scaled to the chart box."""
    peak = max((sum(counts.values()) for _, counts in series), default=0) or 1
    slot = WIDTH / max(len(series), 1)
    plot = HEIGHT - AXIS
    columns = []
    for index, (day, counts) in enumerate(series):
        x = index * slot + GAP / 2
        bottom = plot
        bars = []
        for status in OUTCOMES:
            height = plot * counts.get(status, 0) / peak
            if height:
                bottom -= height
                bars.append(Bar(round(x, 1), round(bottom, 1), round(slot - GAP, 1), round(height, 1),
                                status, counts[status]))
        columns.append(Column(day, f"{day.day}/{day.month}", round(x + (slot - GAP) / 2, 1),
                              sum(counts.values()), bars))
    return {"width": WIDTH, "height": HEIGHT, "baseline": plot, "peak": peak, "columns": columns,
            "outcomes": OUTCOMES}


@dataclass(frozen=True)
class AgeColumn:
    band: object  # service_levels.AgeBand
    x: float
    y: float
    width: float
    height: float
    middle: float


def age_columns(bands):
    """``[AgeBand]`` -> one column per band (pending tickets by age), scaled to the chart box."""
    peak = max((band.count for band in bands), default=0) or 1
    slot = WIDTH / max(len(bands), 1)
    plot = HEIGHT - AXIS
    columns = []
    for index, band in enumerate(bands):
        x = index * slot + GAP / 2
        height = (plot - COUNT_ROOM) * band.count / peak  # room above the tallest for its count
        columns.append(AgeColumn(band, round(x, 1), round(plot - height, 1), round(slot - GAP, 1), round(height, 1),
                                 round(x + (slot - GAP) / 2, 1)))
    return {"width": WIDTH, "height": HEIGHT, "baseline": plot, "peak": peak, "columns": columns,
            "total": sum(band.count for band in bands)}
