"""The merchant dashboard's use cases (docs/dashboard.md): signing in and out, the session a
request belongs to, and each page's data through the gateway's own use cases with the user as
the actor."""
