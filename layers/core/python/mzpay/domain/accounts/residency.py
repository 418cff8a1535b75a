"""Data residency: a tenant is served by its home region only; others answer 421 wrong_region."""

from __future__ import annotations

from mzpay.config import settings
from mzpay.domain.common.errors import ServiceError


def wrong_region(home_region: str, api: str) -> ServiceError:
    """421 naming the tenant's home region and the base URL of the same API there."""
    base_url = settings().peer_region_urls.get(home_region, {}).get(api, "")
    return ServiceError(
        421,
        "wrong_region",
        f"This tenant is served in region {home_region}; resend the request to {base_url or 'that region'}.",
        headers={"Service-Region": home_region, "Service-Region-Url": base_url},
        region=home_region,
        base_url=base_url,
    )


def ensure_home(home_region: str, api: str) -> None:
    """Raise wrong_region unless `home_region` is the region this stack serves."""
    if home_region != settings().service_region:
        raise wrong_region(home_region, api)
