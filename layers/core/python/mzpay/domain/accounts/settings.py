"""A merchant account's own settings (docs/dashboard.md, "Settings"): the brand colour its hosted
checkout and receipts show, the language and sender name of the messages sent for it, and the IP
allowlist of its dashboard users. Pure: what a form may hold, and who may come in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mzpay.domain.common.card_data import holds_card_number
from mzpay.domain.common.errors import ServiceError, invalid_field
from mzpay.domain.common.network import ip_allowed, parse_allowlist

LANGUAGES = ("pt", "en")
MAX_SENDER_NAME = 40
MAX_ALLOWLIST_TEXT = 2000  # what the allowlist's box takes, in characters
MAX_ALLOWLIST = 50  # networks (as an API key's ip_allowlist)
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_SENDER = re.compile(r"[\w .,&'()-]+")


@dataclass(frozen=True)
class AccountSettings:
    """None / empty: not set (the checkout's own colour, Portuguese, the service's name, no
    allowlist: any address)."""

    brand_colour: str | None = None  # '#rrggbb', lower case
    notification_language: str = "pt"
    sender_name: str | None = None
    dashboard_ip_allowlist: tuple[str, ...] = ()
    updated_at: str | None = None
    updated_by: str | None = None

    def public(self) -> dict[str, Any]:
        """What the audit trail records before and after a change."""
        return {
            "brand_colour": self.brand_colour,
            "notification_language": self.notification_language,
            "sender_name": self.sender_name,
            "dashboard_ip_allowlist": list(self.dashboard_ip_allowlist),
        }


@dataclass(frozen=True)
class SettingsForm:
    """The settings form as typed (every field a string)."""

    brand_colour: str = ""
    notification_language: str = "pt"
    sender_name: str = ""
    dashboard_ip_allowlist: str = ""


def _refused(name: str, message: str, code: str = "invalid_value") -> ServiceError:
    return invalid_field(name, message, "validation_error", code)


def parsed(form: SettingsForm, source_ip: str) -> AccountSettings:
    """The settings `form` holds, or 400 `validation_error` naming the first field refused: a
    colour that is not #RRGGBB, a language other than pt or en, a sender name longer than 40 or
    of other characters, a card number anywhere, an allowlist that is not addresses or CIDRs (50
    at most) or that leaves out `source_ip` (the user saving it would be locked out)."""
    for name, value in (
        ("brand_colour", form.brand_colour),
        ("sender_name", form.sender_name),
        ("dashboard_ip_allowlist", form.dashboard_ip_allowlist),
    ):
        if holds_card_number(value):
            raise _refused(name, "holds a card number, which is never stored", "card_data")
    colour = form.brand_colour.strip()
    if colour and not _COLOUR.fullmatch(colour):
        raise _refused("brand_colour", "a colour as #RRGGBB (e.g. #123C69)")
    if form.notification_language not in LANGUAGES:
        raise _refused("notification_language", "pt or en")
    sender = " ".join(form.sender_name.split())
    if len(sender) > MAX_SENDER_NAME:
        raise _refused("sender_name", f"at most {MAX_SENDER_NAME} characters", "too_long")
    if sender and not _SENDER.fullmatch(sender):
        raise _refused("sender_name", "letters, digits, spaces and . , & ' ( ) - only")
    text = form.dashboard_ip_allowlist
    if len(text) > MAX_ALLOWLIST_TEXT:
        raise _refused("dashboard_ip_allowlist", f"at most {MAX_ALLOWLIST_TEXT} characters", "too_long")
    try:
        networks = parse_allowlist(",".join(text.split()))  # commas, spaces or lines between
    except ValueError:
        raise _refused("dashboard_ip_allowlist", "IPv4 or IPv6 addresses or CIDRs", "invalid_cidr") from None
    if len(networks) > MAX_ALLOWLIST:
        raise _refused("dashboard_ip_allowlist", f"at most {MAX_ALLOWLIST} addresses or networks", "too_long")
    if networks and not ip_allowed(source_ip, networks):
        raise _refused("dashboard_ip_allowlist", "must include the address you use now", "locks_you_out")
    return AccountSettings(
        brand_colour=colour.lower() or None,
        notification_language=form.notification_language,
        sender_name=sender or None,
        dashboard_ip_allowlist=tuple(dict.fromkeys(str(net) for net in networks)),
    )


def admits(settings: AccountSettings, source_ip: str) -> bool:
    """Whether a dashboard user may come in from `source_ip` (any address without an allowlist)."""
    if not settings.dashboard_ip_allowlist:
        return True
    return ip_allowed(source_ip, parse_allowlist(",".join(settings.dashboard_ip_allowlist)))


def address_refused() -> ServiceError:
    return ServiceError(403, "ip_not_allowed", "The account's dashboard may not be used from this address.")


@dataclass(frozen=True)
class Brand:
    """How the hosted checkout and receipt pages wear the account's colour: its buttons in
    `colour` with `text` on them (white or near-black, whichever reads better on it)."""

    colour: str
    text: str


def _luminance(colour: str) -> float:
    """WCAG's relative luminance of '#rrggbb'."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def brand(settings: AccountSettings) -> Brand | None:
    """The account's brand for the payer's pages (None: the pages' own colours)."""
    if not settings.brand_colour or not _COLOUR.fullmatch(settings.brand_colour):
        return None  # only a validated colour ever reaches a page's style
    lum = _luminance(settings.brand_colour)
    on_white = 1.05 / (lum + 0.05)
    on_dark = (lum + 0.05) / (_luminance("#1b1f1d") + 0.05)
    return Brand(settings.brand_colour.lower(), "#ffffff" if on_white >= on_dark else "#1b1f1d")
