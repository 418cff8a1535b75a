"""mzpay core: the shared layer of every mzpay Lambda function."""

__version__ = "0.1.0"
