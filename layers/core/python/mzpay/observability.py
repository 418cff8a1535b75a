"""Structured JSON logs (Powertools Logger) shared by every function of the stack."""

from __future__ import annotations

from aws_lambda_powertools import Logger

# Service name comes from POWERTOOLS_SERVICE_NAME (set per function in template.yaml).
logger = Logger(utc=True)
