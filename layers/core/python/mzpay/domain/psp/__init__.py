"""PSPs onboarding with us: onboarding, certification, logos, pilot, PSP transactions."""
