"""Evidence files in the region's uploads bucket (encrypted with the stack's data key), under the
folder of what they prove (a dispute, a manual payment) and a fresh id per submission, so that
two racing submissions never write over each other's files (the one whose record lands names
its own); S3 checks each file against its SHA-256. They are written before the state change that
records them: a record never names a missing object (an object no record names, left by a fault
between the two or by the losing submission, is reached by nobody)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

from mzpay.domain.common.clock import iso
from mzpay.domain.common.evidence import EvidenceRequest, uploads
from mzpay.domain.common.ids import new_id
from mzpay.store.aws import client, env


class EvidenceFiles:
    def __init__(self, bucket: str) -> None:
        self.bucket = bucket

    @classmethod
    def from_env(cls) -> EvidenceFiles:
        return cls(env("UPLOADS_BUCKET"))

    def keep(self, folder: str, account_id: str, request: EvidenceRequest, prefix: str = "") -> dict[str, Any]:
        """The request's files written under `folder`; the evidence as its record keeps it (text,
        each file's type, size, SHA-256 and key, and when it was given). 400 for a bad file
        (named after `prefix`), before any is written."""
        checked = uploads(request, prefix)
        submission = new_id()
        files = []
        for position, upload in enumerate(checked):
            key = f"{folder}/{submission}/evidence-{position}.{upload.file_type}"
            client("s3").put_object(
                Bucket=self.bucket,
                Key=key,
                Body=upload.content,
                ContentType=upload.media_type,
                ChecksumSHA256=base64.b64encode(bytes.fromhex(upload.sha256)).decode(),
                Metadata={"account-id": account_id, "sha256": upload.sha256},
            )
            files.append({"file_type": upload.file_type, "size": upload.size, "sha256": upload.sha256, "key": key})
        return {"text": request.text, "files": files, "at": iso(datetime.now(UTC))}
