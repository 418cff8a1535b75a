"""The home page's volume and success rate by method (docs/dashboard.md, "Home"): today and the
last 30 days, days cut in Africa/Maputo, sums in Decimal; and the bars that draw them as SVG on
the server. Pure: the payments come in, figures and geometry go out.

- a payment counts in the period its creation falls in, under its method (the source's type);
  one whose payer never chose a method (a checkout left unpaid) is counted nowhere;
- volume: the sum of what was captured (money that moved), per method and currency;
- success rate: succeeded ÷ (succeeded + failed + expired), the payments that reached an
  outcome; those still in progress, held (authorized) or canceled by the merchant are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

ZONE = ZoneInfo("Africa/Maputo")
DAYS = 30  # today and the 29 days before it
SUCCEEDED = "succeeded"
UNSUCCESSFUL = frozenset({"failed", "expired"})
MAX_PAYMENTS = 20_000  # read at most this many of the newest payments of the 30 days (the page says so)

# The bars' geometry (SVG user units; the image scales to the page's width).
CHART_WIDTH = 320
LABEL_WIDTH = 120
BAR_HEIGHT = 20
ROW_HEIGHT = 30


@dataclass(frozen=True)
class Sale:
    """What the figures need of one payment."""

    day: date  # its creation's day in Africa/Maputo
    method: str | None
    currency: str
    status: str
    captured: Decimal


@dataclass
class MethodFigures:
    """One method's figures in one currency over one period."""

    method: str
    currency: str
    payments: int = 0
    succeeded: int = 0
    decided: int = 0  # succeeded, failed or expired
    volume: Decimal = Decimal(0)

    @property
    def rate(self) -> Decimal | None:
        """The success rate in percent to one decimal (None: nothing reached an outcome)."""
        if not self.decided:
            return None
        return (Decimal(100 * self.succeeded) / self.decided).quantize(Decimal("0.1"), ROUND_HALF_UP)


@dataclass(frozen=True)
class Bar:
    method: str
    currency: str
    value: Decimal | None  # the volume, or the rate in percent (None: no outcome yet)
    y: int
    width: Decimal  # the bar's length in user units


@dataclass
class Period:
    """`today` or `30_days`: its first day and each (method, currency)'s figures."""

    name: str
    first_day: date
    figures: list[MethodFigures] = field(default_factory=list)

    def volume_bars(self) -> list[Bar]:
        """A bar per (method, currency), as long as its volume over the largest of its currency's."""
        largest: dict[str, Decimal] = {}
        for one in self.figures:
            largest[one.currency] = max(largest.get(one.currency, Decimal(0)), one.volume)
        return [_bar(i, one, one.volume, largest[one.currency]) for i, one in enumerate(self.figures)]

    def rate_bars(self) -> list[Bar]:
        """A bar per (method, currency), as long as its success rate over 100 %."""
        return [_bar(i, one, one.rate, Decimal(100)) for i, one in enumerate(self.figures)]

    @property
    def height(self) -> int:
        return max(1, len(self.figures)) * ROW_HEIGHT


@dataclass
class Volume:
    """Today's and the last 30 days' figures, and whether every payment of the 30 days was read."""

    today: Period
    last_30_days: Period
    complete: bool = True


def _bar(index: int, one: MethodFigures, value: Decimal | None, largest: Decimal) -> Bar:
    room = Decimal(CHART_WIDTH - LABEL_WIDTH - 80)  # what the value's text leaves
    width = (room * value / largest).quantize(Decimal("0.1")) if value and largest > 0 else Decimal(0)
    return Bar(one.method, one.currency, value, index * ROW_HEIGHT, width)


def today(now: datetime) -> date:
    return now.astimezone(ZONE).date()


def since(now: datetime) -> datetime:
    """The first moment of the 30 days (midnight in Maputo, 29 days before today), in UTC."""
    first = today(now) - timedelta(days=DAYS - 1)
    return datetime.combine(first, time(0), ZONE).astimezone(ZoneInfo("UTC"))


def day_of(moment: datetime) -> date:
    return moment.astimezone(ZONE).date()


def summarize(sales: Iterable[Sale], now: datetime, complete: bool = True) -> Volume:
    """The figures of `sales` (those made since `since(now)`), today's and the 30 days'."""
    last = today(now)
    periods = (Period("today", last), Period("30_days", last - timedelta(days=DAYS - 1)))
    found: list[dict[tuple[str, str], MethodFigures]] = [{}, {}]
    for sale in sales:
        if sale.method is None:
            continue
        for period, figures in zip(periods, found, strict=True):
            if not period.first_day <= sale.day <= last:
                continue
            one = figures.setdefault((sale.method, sale.currency), MethodFigures(sale.method, sale.currency))
            one.payments += 1
            one.volume += sale.captured
            if sale.status == SUCCEEDED:
                one.succeeded += 1
            if sale.status == SUCCEEDED or sale.status in UNSUCCESSFUL:
                one.decided += 1
    for period, figures in zip(periods, found, strict=True):
        period.figures = [figures[key] for key in sorted(figures)]
    return Volume(periods[0], periods[1], complete)
