"""The home page's volume and success rate by method (mzpay.domain.dashboard.volume): days cut in
Africa/Maputo, Decimal sums per method and currency, the rate over payments with an outcome, the
bars' lengths."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

from mzpay.domain.dashboard.volume import Sale, day_of, since, summarize, today

NOW = datetime(2026, 11, 29, 22, 30, tzinfo=UTC)  # 00:30 on 30 November in Maputo (UTC+2)


def sale(day: date, method: str | None, status: str, captured: str = "0", currency: str = "MZN") -> Sale:
    return Sale(day, method, currency, status, Decimal(captured))


def test_days_are_cut_in_maputo() -> None:
    assert today(NOW) == date(2026, 11, 30)
    assert since(NOW) == datetime(2026, 10, 31, 22, 0, tzinfo=UTC)  # midnight of 1 November in Maputo
    assert day_of(datetime(2026, 11, 29, 21, 59, 59, tzinfo=UTC)) == date(2026, 11, 29)
    assert day_of(datetime(2026, 11, 29, 22, 0, tzinfo=UTC)) == date(2026, 11, 30)


def test_volume_and_success_rate_by_method_today_and_over_30_days() -> None:
    sales = [
        sale(date(2026, 11, 30), "mobile_wallet", "succeeded", "40.10"),
        sale(date(2026, 11, 30), "mobile_wallet", "succeeded", "0.20"),
        sale(date(2026, 11, 30), "mobile_wallet", "failed"),
        sale(date(2026, 11, 30), "mobile_wallet", "pending"),  # no outcome yet: not in the rate
        sale(date(2026, 11, 1), "card", "expired"),
        sale(date(2026, 11, 1), "card", "succeeded", "10.00", "USD"),
        sale(date(2026, 10, 31), "card", "succeeded", "99.00"),  # before the 30 days
        sale(date(2026, 11, 30), None, "requires_payment_method"),  # no method chosen: nowhere
    ]
    volume = summarize(sales, NOW)
    (wallet,) = volume.today.figures
    assert (wallet.method, wallet.currency, wallet.payments, wallet.succeeded, wallet.decided) == (
        "mobile_wallet",
        "MZN",
        4,
        2,
        3,
    )
    assert wallet.volume == Decimal("40.30") and wallet.rate == Decimal("66.7")
    month = {(f.method, f.currency): f for f in volume.last_30_days.figures}
    assert set(month) == {("card", "MZN"), ("card", "USD"), ("mobile_wallet", "MZN")}
    assert month[("card", "MZN")].rate == Decimal("0.0") and month[("card", "MZN")].volume == 0
    assert month[("card", "USD")].rate == Decimal("100.0") and month[("card", "USD")].volume == Decimal("10.00")
    assert volume.last_30_days.first_day == date(2026, 11, 1) and volume.complete


def test_bars_are_scaled_per_currency_and_rates_to_a_hundred() -> None:
    volume = summarize(
        [
            sale(date(2026, 11, 30), "mobile_wallet", "succeeded", "100.00"),
            sale(date(2026, 11, 30), "card", "succeeded", "25.00"),
            sale(date(2026, 11, 30), "card", "failed"),
            sale(date(2026, 11, 30), "qr", "pending"),
        ],
        NOW,
    )
    volumes = {bar.method: bar.width for bar in volume.today.volume_bars()}
    rates = {bar.method: (bar.value, bar.width) for bar in volume.today.rate_bars()}
    assert volumes == {"card": Decimal("30.0"), "mobile_wallet": Decimal("120.0"), "qr": Decimal(0)}
    assert rates == {
        "card": (Decimal("50.0"), Decimal("60.0")),
        "mobile_wallet": (Decimal("100.0"), Decimal("120.0")),
        "qr": (None, Decimal(0)),
    }
    assert [bar.y for bar in volume.today.volume_bars()] == [0, 30, 60] and volume.today.height == 90
