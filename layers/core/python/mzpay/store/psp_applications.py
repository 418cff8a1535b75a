"""PSP onboarding applications in the payments table:

  PSPAPP#<application_id>, APPLICATION   the application (status, version, fields, files' records)
  PSPAPP#<application_id>, RUN#<run_id>  its certification runs
  PSPAPPL, <application_id>              its place in the list (a ULID: newest first)
  PSP#<psp_id>, APPLICATION              the application that last onboarded the PSP

Every change is a versioned update of the application (store.transitions), alone or in ONE
transaction: starting a run (with the run's put), finishing it (with the run's own versioned
update) and approving (with the PSP's routing state). KYB documents and logos are
objects of the uploads bucket under psp-applications/<application_id>/, named by their SHA-256
and written before the update that records them, which S3 checks against that checksum."""

from __future__ import annotations

import base64
from typing import Any

from mzpay.domain.psp.certification import CertificationRun
from mzpay.domain.psp.onboarding import PspApplication
from mzpay.store.aws import (
    client,
    env,
    error_code,
    newest_first,
    read_keys,
)
from mzpay.store.base import UploadsTableStore, keyed, put_new
from mzpay.store.psp_routing import pilot_item, status_item
from mzpay.store.transitions import versioned_update, write_token

LIST = "PSPAPPL"


class ApplicationMoved(Exception):
    """The application (or its run) changed meanwhile: read it again and judge."""


_key = keyed("PSPAPP", "APPLICATION")


def _run_key(application_id: str, run_id: str) -> dict[str, str]:
    return {"pk": f"PSPAPP#{application_id}", "sk": f"RUN#{run_id}"}


class PspApplications(UploadsTableStore):
    @classmethod
    def from_env(cls) -> PspApplications:
        return cls(env("PAYMENTS_TABLE"), env("UPLOADS_BUCKET"))

    def create(self, application: PspApplication) -> None:
        item = {**_key(application.application_id), **application.item()}
        listed = {"pk": LIST, "sk": application.application_id}
        self.client.transact_write_items(
            TransactItems=[
                put_new(self.name, item),
                {"Put": {"TableName": self.name, "Item": listed}},
            ]
        )

    def get(self, application_id: str) -> PspApplication | None:
        return self.read_item(PspApplication, _key(application_id))

    def page(self, size: int, start: dict[str, str] | None) -> tuple[list[PspApplication], dict[str, str] | None]:
        """A page of applications, newest first, and the key to continue after."""
        items, last = newest_first(self.table, LIST, size, start)
        kept = read_keys(self.client, self.name, [_key(item["sk"]) for item in items])
        return [PspApplication.model_validate(item) for item in kept], last

    def change(self, application: PspApplication, changes: dict[str, Any], *extra: dict[str, Any]) -> PspApplication:
        """Apply `changes` if the application is as it was read (else ApplicationMoved), in one
        transaction with the `extra` items."""
        token = write_token()
        items = [versioned_update(self.name, _key(application.application_id), application, changes, token), *extra]
        return self.transact_versioned(
            items,
            application,
            changes,
            token,
            lambda: self.get(application.application_id),
            lambda _fresh, _exc: ApplicationMoved(),
        )

    # ------------------------------------------------------------------ approval's other items
    def routing_items(self, application: PspApplication, now: str) -> list[dict[str, Any]]:
        """The PSP named as onboarded by the application (the latest approval wins), made
        available and put in pilot with the application's settings."""
        psp_id = str(application.psp_id)
        claim = {"pk": f"PSP#{psp_id}", "sk": "APPLICATION", "application_id": application.application_id}
        pilot = {"psp_id": psp_id, "in_pilot": True, "settings": application.pilot, "updated_at": now}
        reason = f"onboarded by application {application.application_id}"
        return [
            {"Put": {"TableName": self.name, "Item": claim}},
            {"Put": {"TableName": self.name, "Item": status_item(psp_id, True, reason, now)}},
            {"Put": {"TableName": self.name, "Item": pilot_item(psp_id, pilot)}},
        ]

    # ------------------------------------------------------------------ certification runs
    def run_put(self, run: CertificationRun) -> dict[str, Any]:
        item = {**_run_key(run.application_id, run.run_id), **run.item()}
        return put_new(self.name, item)

    def run_update(self, run: CertificationRun, changes: dict[str, Any]) -> dict[str, Any]:
        return versioned_update(self.name, _run_key(run.application_id, run.run_id), run, changes)

    def run(self, application_id: str, run_id: str) -> CertificationRun | None:
        return self.read_item(CertificationRun, _run_key(application_id, run_id))

    # ------------------------------------------------------------------ files (documents, logo)
    def keep_file(self, application_id: str, folder: str, content: bytes, media_type: str, sha256: str) -> str:
        """The file written (S3 checks it against `sha256`); its key."""
        extension = media_type.rsplit("/", 1)[-1].replace("jpeg", "jpg")
        key = f"psp-applications/{application_id}/{folder}/{sha256}.{extension}"
        client("s3").put_object(
            Bucket=self.bucket,
            Key=key,
            Body=content,
            ContentType=media_type,
            ChecksumSHA256=base64.b64encode(bytes.fromhex(sha256)).decode(),
            Metadata={"sha256": sha256},
        )
        return key

    def read_file(self, key: str) -> bytes | None:
        """The stored bytes (None when the object is gone)."""
        try:
            answer = client("s3").get_object(Bucket=self.bucket, Key=key)
        except Exception as exc:
            if error_code(exc) in ("NoSuchKey", "404"):
                return None
            raise
        return bytes(answer["Body"].read())
