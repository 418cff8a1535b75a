"""Uploaded files: the content in UploadsBucket under accounts/<account_id>/files/<file_id>
(encrypted with the stack's data key), and its record in CollectionTable (pk FILE#<account_id>,
sk <file_id>: type, size, SHA-256, object key). A file is found only through its own account."""

from __future__ import annotations

from typing import Any

from mzpay.domain.common.files import Upload
from mzpay.store.aws import client, env
from mzpay.store.base import UploadsTableStore


def object_key(account_id: str, file_id: str) -> str:
    return f"accounts/{account_id}/files/{file_id}"


class Files(UploadsTableStore):
    @classmethod
    def from_env(cls) -> Files:
        return cls(env("COLLECTION_TABLE"), env("UPLOADS_BUCKET"))

    def save(self, account_id: str, file_id: str, upload: Upload, now: str) -> dict[str, Any]:
        """The content first, then its record: a record never names a missing object (a fault
        between them leaves an object no record names, which nobody can reach)."""
        key = object_key(account_id, file_id)
        client("s3").put_object(
            Bucket=self.bucket,
            Key=key,
            Body=upload.content,
            ContentType=upload.media_type,
            ChecksumSHA256=_base64_sha256(upload),
            Metadata={"account-id": account_id, "sha256": upload.sha256},
        )
        record = {
            "file_id": file_id,
            "account_id": account_id,
            "file_type": upload.file_type,
            "file_size": upload.size,
            "sha256": upload.sha256,
            "bucket": self.bucket,
            "key": key,
            "created_at": now,
        }
        self.table.put_item(Item={"pk": f"FILE#{account_id}", "sk": file_id, **record})
        return record

    def get(self, account_id: str, file_id: str) -> dict[str, Any] | None:
        """The file's record, if `account_id` uploaded it."""
        item = self.table.get_item(Key={"pk": f"FILE#{account_id}", "sk": file_id}, ConsistentRead=True).get("Item")
        return None if item is None else {k: v for k, v in item.items() if k not in ("pk", "sk")}


def _base64_sha256(upload: Upload) -> str:
    import base64

    return base64.b64encode(bytes.fromhex(upload.sha256)).decode()
