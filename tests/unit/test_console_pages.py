"""The console's download answer (mzpay.http.console_pages.download): a report without its file
is refused before any redirect is built."""

from __future__ import annotations

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.http.console_pages import download


def test_a_report_without_its_file_is_409_report_not_ready() -> None:
    with pytest.raises(ServiceError) as refused:
        download(None)
    assert (refused.value.status, refused.value.code) == (409, "report_not_ready")
