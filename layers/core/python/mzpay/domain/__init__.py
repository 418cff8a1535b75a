"""Pure payment rules: no boto3, no HTTP."""
