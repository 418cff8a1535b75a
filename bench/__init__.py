"""`make bench`: cold start, warm in-process latency and latency through the local stack.

Each kind of measurement is a `Section` (see `bench.report`) listed in `bench.__main__.SECTIONS`;
each section runs a list of small cases (functions, routes, requests) declared in its module.
"""
