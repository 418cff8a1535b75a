"""Trusted devices (docs/collection.md, "Devices"): a device is trusted per account; the first
trust wins, trusting it again for the same user is answered the same, and for another user it is
409 already_exists."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.answers.collection_identity import DeviceCheck, DeviceTrusted
from mzpay.domain.collection.devices import canonical_device_id, is_device_id
from mzpay.domain.common.errors import FieldError, ServiceError

_FIELDS = ("device_id", "user_id", "device_name", "manufacturer", "model", "os", "ip_address", "created_at")


def _device_id(text: str) -> str:
    if not is_device_id(text):
        error = FieldError("device_id", "invalid_format", "device_id must be a SHA-256 hex digest (64 hex digits)")
        raise ServiceError(400, "validation_error", "The request has invalid fields: device_id.", errors=[error])
    return canonical_device_id(text)


def trust(account_id: str, device: dict[str, Any]) -> DeviceTrusted:
    """Trust `device` for the account: `{trusted: <device_id>}`."""
    record = {name: device.get(name) for name in _FIELDS}
    record["device_id"] = device_id = _device_id(str(device["device_id"]))
    record["trusted_at"] = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    stored = deps.devices().trust(account_id, record)
    if stored["user_id"] != record["user_id"]:
        raise ServiceError(409, "already_exists", "This device is trusted for another user of the account.")
    return DeviceTrusted(object="device", trusted=device_id)


def exists(account_id: str, device_id: str) -> DeviceCheck:
    """Whether the account trusts the device: `{object: device, device_exists}`."""
    return DeviceCheck(object="device", device_exists=deps.devices().get(account_id, _device_id(device_id)) is not None)
