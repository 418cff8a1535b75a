"""A certification run (docs/psp-onboarding.md, "Certification"): a fixed script played through the
connector interface against the deterministic simulator, for each method and currency the
application names, with the simulator's documented magic values (docs/test-mode.md). Each step
records what was expected and what was observed; the run passes when every step does.

The script, per (method, currency): a method or currency the applied-for PSP does not carry (its
capability matrix) is one failed step `capability`; otherwise `charge_succeeds`, a charge that
fails `insufficient_funds` (wallets and cards), a `refund` of the first charge, a `payout` (wallets)
and last `payer_confirms`: a charge waiting on the payer (a wallet prompt, 3-D Secure, or the
payer's step elsewhere), whose status is queried once the simulated payer has answered,
PAYER_DELAY after the run started. Until then the run is `running`: one at a time per
application (409 certification_running).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from mzpay.domain.common.entity import Entity
from mzpay.domain.payments.routing import BINDING_METHODS, PSPS

PAYER_DELAY = timedelta(seconds=3)  # the simulated payer answers a prompt 3 s after it appeared
AMOUNT = "100.00"
REFUND_AMOUNT = "10.00"
PAYOUT_AMOUNT = "25.00"
# The simulator's test numbers by wallet network: the last four digits decide (docs/test-mode.md).
WALLET_PREFIXES = {"mpesa": "+25884", "emola": "+25886", "mkesh": "+25882"}


class RunStatus:
    RUNNING = "running"
    PASSED = "passed"
    FAILED = "failed"


@dataclass(frozen=True)
class Step:
    """One step of the script: what to ask the connector and what the simulator must answer."""

    name: str
    method: str  # a binding method: a wallet network, card, bank_transfer, ...
    currency: str
    source: dict[str, Any]
    expected: dict[str, Any]


class CertificationRun(Entity):
    """A run as stored (pk PSPAPP#<application_id>, sk RUN#<run_id>)."""

    run_id: str
    application_id: str
    psp_id: str
    steps: list[dict[str, Any]]  # {name, method, currency, expected, observed, passed}
    started_at: str
    due_at: str  # when the payer's answer is in: the run can finish
    finished_at: str | None = None


def _source(method: str, last_four: str = "0000", token: str = "tok_test_visa") -> dict[str, Any]:
    kind, network = BINDING_METHODS[method]
    if kind == "mobile_wallet":
        assert network is not None
        return {
            "type": kind,
            "mobile_wallet": {"network": network, "phone_number": WALLET_PREFIXES[network] + "000" + last_four},
        }
    if kind == "card":
        return {"type": "card", "card": {"token": token}}
    return {"type": kind}


def _outcome(status: str, failure_code: str | None = None) -> dict[str, Any]:
    return {"status": status, "failure_code": failure_code}


def script(psp_id: str, methods: list[str], currencies: list[str]) -> list[Step]:
    """The steps a run plays for an application of `psp_id` naming `methods` and `currencies`."""
    psp = PSPS[psp_id]
    steps: list[Step] = []
    for method in methods:
        kind, network = BINDING_METHODS[method]
        for currency in currencies:
            if not (psp.carries(kind, network) and currency in psp.currencies):
                steps.append(Step("capability", method, currency, {"type": kind}, _outcome("carried")))
                continue
            steps.append(Step("charge_succeeds", method, currency, _source(method), _outcome("succeeded")))
            if kind in ("mobile_wallet", "card"):
                declined = _source(method, "0001", "tok_test_insufficient_funds")
                steps.append(Step("charge_fails", method, currency, declined, _outcome("failed", "insufficient_funds")))
            steps.append(Step("refund", method, currency, _source(method), _outcome("succeeded")))
            if kind == "mobile_wallet":
                steps.append(Step("payout", method, currency, _source(method), _outcome("succeeded")))
            waiting = _source(method, "1234", "tok_test_3ds")
            steps.append(Step("payer_confirms", method, currency, waiting, _outcome("succeeded")))
    return steps


def step_record(step: Step, observed: dict[str, Any] | None) -> dict[str, Any]:
    """The step as the run keeps it (observed None: not played yet)."""
    return {
        "name": step.name,
        "method": step.method,
        "currency": step.currency,
        "expected": step.expected,
        "observed": observed,
        "passed": None if observed is None else observed == step.expected,
    }


def outcome(steps: list[dict[str, Any]]) -> str:
    return RunStatus.PASSED if all(step["passed"] for step in steps) else RunStatus.FAILED


def view(run: CertificationRun) -> dict[str, Any]:
    return {
        "object": "psp_certification_run",
        "run_id": run.run_id,
        "application_id": run.application_id,
        "psp_id": run.psp_id,
        "status": run.status,
        "steps": run.steps,
        "started_at": run.started_at,
        "due_at": run.due_at,
        "finished_at": run.finished_at,
    }
