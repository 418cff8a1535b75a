"""Bill quotes, bill payments, subscriptions, billers and the billers' API."""
