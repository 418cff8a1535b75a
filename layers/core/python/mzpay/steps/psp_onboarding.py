"""What the PSP onboarding use cases share: finding an application (404 otherwise) and moving
it by one versioned write, judged again after a lost race."""

from __future__ import annotations

from collections.abc import Callable

from mzpay import deps
from mzpay.domain.common.errors import found
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.psp.onboarding import TARGET, PspApplication, view
from mzpay.steps.audit import observe
from mzpay.store.psp_applications import ApplicationMoved
from mzpay.store.transitions import rejudged


def application(application_id: str) -> PspApplication:
    """The application of this region's stack, else 404 not_found."""
    return found(deps.psp_applications().get(application_id) if is_ulid(application_id) else None, "PSP application")


def move(first: PspApplication, write: Callable[[PspApplication], PspApplication]) -> PspApplication:
    """`write` judged on the application as the caller read it (`first`), then on the application
    as it is now after each lost race; the audit trail observes the change."""
    unread = [first]

    def read() -> PspApplication:
        return unread.pop() if unread else application(first.application_id)

    after = rejudged(read, write, ApplicationMoved, "PSP application")
    observe(TARGET, first.application_id, before=view(first), after=view(after))
    return after
