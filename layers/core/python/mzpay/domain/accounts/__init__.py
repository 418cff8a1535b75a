"""The tenant (states, home region, residency) and its per-account ceilings."""
