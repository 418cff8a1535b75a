"""Partners, customers' payment methods and their transactions (docs/partners.md)."""
