"""The collection surface: licence, access, identity providers, devices, reference data, business
onboarding, KYC, collection requests."""
