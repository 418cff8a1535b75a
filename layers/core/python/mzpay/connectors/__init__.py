"""Payment providers behind one interface: the deterministic simulated connector (test mode)
and the live ones (bound per account, mode and method)."""
