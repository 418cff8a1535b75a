"""Every upload of a file is counted against its owner's upload limits before anything is stored
(mzpay.domain.access.rate_limits, "uploads"): over one, 429 rate_limited naming the rule, and nothing is
kept."""

from __future__ import annotations

from mzpay import deps
from mzpay.domain.access.rate_limits import upload_limited, upload_limits
from mzpay.domain.common import clock
from mzpay.domain.common.evidence import EvidenceRequest, uploads

# The mode of uploads on surfaces without test and live (collection, management).
NO_MODE = "-"


def admit_upload(owner: str, size: int, mode: str = NO_MODE) -> None:
    """Count an upload of `size` bytes by `owner` (an account id, or a PSP application id) in
    `mode` (a gateway key's: test uploads never use up the live allowance); raise 429
    rate_limited when it would pass a limit (then it is not counted)."""
    now = clock.now().timestamp()
    limits = upload_limits()
    over = deps.upload_counters().take(owner, mode, size, now, limits)
    if over is not None:
        raise upload_limited(over, limits, now)


def admit_evidence(account_id: str, mode: str, request: EvidenceRequest, prefix: str = "") -> None:
    """Evidence with files is one upload of their total size (checked first: a bad file is its
    400, not a count); evidence of text only is not an upload."""
    checked = uploads(request, prefix)
    if checked:
        admit_upload(account_id, sum(upload.size for upload in checked), mode)
