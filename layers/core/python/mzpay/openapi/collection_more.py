"""The collection surface's enumerations that the management API's answers share (a business
account's status, the service's region); the collection answers themselves are
mzpay.answers.collection_*."""

from mzpay.answers.collection_accounts import BusinessStatus
from mzpay.answers.collection_system import Region

__all__ = ["BusinessStatus", "Region"]
