"""mzpay-admin: the operator CLI of the mzpay management API (accounts, API keys, webhook secrets)."""

__version__ = "0.1.0"
