"""Certification runs of a submitted PSP application (docs/psp-onboarding.md, "Certification"):
the script of mzpay.domain.psp.certification played through the connector interface against the
deterministic simulator. A run starts with the steps the simulator answers at once and stays
`running` until the simulated payer has answered its prompts (3 s); the first read after that
(GET, or a new POST) plays the last steps and finishes it. One run at a time per application:
starting is a versioned write of the application naming its active run (409
certification_running while it is there)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers import psp_onboarding as answers
from mzpay.connectors.base import PayoutCall, ProviderCall, ProviderResult
from mzpay.connectors.simulated import SimulatedConnector
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError, found
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.payments.rules import Status as PaymentStatus
from mzpay.domain.psp.certification import (
    AMOUNT,
    PAYER_DELAY,
    PAYOUT_AMOUNT,
    REFUND_AMOUNT,
    CertificationRun,
    RunStatus,
    Step,
    outcome,
    script,
    step_record,
    view,
)
from mzpay.domain.psp.onboarding import PspApplication, next_status
from mzpay.domain.psp.onboarding import view as application_view
from mzpay.steps.psp_onboarding import application, move
from mzpay.store.psp_applications import ApplicationMoved

LATE_STEPS = frozenset({"payer_confirms"})  # played once the simulated payer has answered


def start(application_id: str) -> answers.CertificationRun:
    """POST /{id}/certification-runs: a new run of a submitted application (409 invalid_state
    otherwise), unless one is running (409 certification_running); a run whose payer has
    answered is finished first."""
    current = application(application_id)
    next_status(current.status, "certify")
    current = _settled(current)
    started = datetime.now(UTC)
    steps = script(str(current.psp_id), current.methods or [], current.currencies or [])
    records = [step_record(step, None if step.name in LATE_STEPS else _play(step)) for step in steps]
    run = CertificationRun(
        run_id=new_id(),
        application_id=current.application_id,
        psp_id=str(current.psp_id),
        status=RunStatus.RUNNING,
        version=1,
        steps=records,
        started_at=iso(started),
        due_at=iso(started + PAYER_DELAY),
    )
    if all(record["observed"] is not None for record in records):  # nothing waits on a payer
        run = run.with_changes({"status": outcome(records), "finished_at": run.started_at})
    store = deps.psp_applications()

    def write(fresh: PspApplication) -> PspApplication:
        next_status(fresh.status, "certify")
        if fresh.active_run:
            raise _running()
        changes: dict[str, Any] = {"updated_at": run.started_at}
        if run.status == RunStatus.RUNNING:
            changes["active_run"] = run.run_id
        else:
            changes["certification"] = _summary(run)
        return store.change(fresh, changes, store.run_put(run))

    move(current, write)
    return answers.CertificationRun.of(view(run))


def read(application_id: str, run_id: str) -> answers.CertificationRun:
    """GET /{id}/certification-runs/{run_id}: the run, finished first if its payer has answered."""
    current = application(application_id)
    run = found(
        deps.psp_applications().run(current.application_id, run_id) if is_ulid(run_id) else None, "certification run"
    )
    if run.status == RunStatus.RUNNING and _due(run):
        run = _finish(current, run)
    return answers.CertificationRun.of(view(run))


def read_application(application_id: str) -> answers.PspApplication:
    """The application as operators read it, its certification run finished first when its payer
    has answered (the console's page: reading it is what settles a run, as reading the run does)."""
    current = application(application_id)
    if current.active_run:
        run = deps.psp_applications().run(current.application_id, current.active_run)
        if run is not None and run.status == RunStatus.RUNNING and _due(run):
            _finish(current, run)
            current = application(application_id)
    return answers.PspApplication.of(application_view(current))


def _running() -> ServiceError:
    return ServiceError(
        409,
        "certification_running",
        "A certification run of this application is in progress; read it, and start another once it ends.",
        headers={"Retry-After": str(int(PAYER_DELAY.total_seconds()))},
    )


def _due(run: CertificationRun) -> bool:
    return iso(datetime.now(UTC)) >= run.due_at


def _settled(current: PspApplication) -> PspApplication:
    """The application without an active run: a due one is finished; one still waiting is 409."""
    if not current.active_run:
        return current
    run = deps.psp_applications().run(current.application_id, current.active_run)
    if run is None or run.status != RunStatus.RUNNING or not _due(run):
        raise _running()
    _finish(current, run)
    return application(current.application_id)


def _finish(current: PspApplication, run: CertificationRun) -> CertificationRun:
    """The run with its late steps played, finished in one transaction with the application
    (which forgets it as active and keeps its outcome); when another request finished it
    first, the run as that one left it."""
    steps = script(run.psp_id, current.methods or [], current.currencies or [])
    records = [
        record if record["observed"] is not None else step_record(step, _play(step, late=True))
        for step, record in zip(steps, run.steps, strict=True)
    ]
    changes = {"status": outcome(records), "steps": records, "finished_at": iso(datetime.now(UTC))}
    finished = run.changed(changes)
    store = deps.psp_applications()
    for _attempt in range(3):
        if current.active_run != run.run_id:  # another request finished it
            return store.run(run.application_id, run.run_id) or finished
        try:
            store.change(
                current,
                {"active_run": None, "certification": _summary(finished), "updated_at": finished.finished_at},
                store.run_update(run, changes),
            )
        except ApplicationMoved:
            current = application(current.application_id)
            continue
        return finished
    raise ServiceError(503, "processing_error", "The application keeps changing; retry.", headers={"Retry-After": "1"})


def _summary(run: CertificationRun) -> dict[str, Any]:
    return {"run_id": run.run_id, "status": run.status, "finished_at": run.finished_at}


# ---------------------------------------------------------------- the simulator
def _play(step: Step, late: bool = False) -> dict[str, Any]:
    """What the connector answers the step (the simulator decides from its inputs)."""
    if step.name == "capability":
        return {"status": "not_supported", "failure_code": None}
    connector = SimulatedConnector()
    call = ProviderCall(new_id(), Decimal(AMOUNT), step.currency, step.source)
    if step.name == "refund":
        return _observed(connector.refund(call, Decimal(REFUND_AMOUNT), new_id()))
    if step.name == "payout":
        return _observed(connector.payout(PayoutCall(new_id(), Decimal(PAYOUT_AMOUNT), step.currency, step.source)))
    charged = connector.charge(call)
    if late and charged.status == PaymentStatus.REQUIRES_ACTION:  # the payer answered: query its outcome
        return _observed(connector.complete_action(call, charged.next_action or {}, None))
    return _observed(charged)


def _observed(result: ProviderResult) -> dict[str, Any]:
    return {"status": result.status, "failure_code": result.failure_code}
