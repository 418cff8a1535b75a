"""Use cases of the collection surface (surface B): licence, sign-in, identity providers, devices."""
