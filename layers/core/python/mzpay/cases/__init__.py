"""Use cases: what the handlers call. Each applies domain rules and persists through the stores;
none imports `mzpay.http`, and none imports another use case (shared steps live in
`mzpay.steps`, below this layer)."""
