"""HTTP conventions shared by every function: resolver, errors, request ids, authorizers.

The only package that knows API Gateway event shapes.
"""
