"""Connector bindings (operators, management API) and the connector a payment goes through.

Test traffic is served by the simulated connector and never reads a binding: a test payment
cannot reach live credentials, and the KMS encryption context (account, mode, method) would
refuse to open a live blob for it anyway. Live traffic goes through the connector of the PSP
bound to (account, live, method); with none bound it is 409 no_connector_binding.
"""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers import bindings as answers
from mzpay.answers.route_health import FurtherRoute
from mzpay.connectors.registry import LIVE_CONNECTORS, NOT_CONNECTED
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.payments.routing import BINDING_METHODS, PSPS
from mzpay.steps.accounts import home_account


def _refuse(field: str, reason: str, message: str) -> ServiceError:
    return ServiceError(400, "invalid_request", message, errors=[FieldError(field, reason, message)])


def bind(account_id: str, mode: str, method: str, psp_id: str, credentials: dict[str, str]) -> answers.ConnectorBinding:
    """Bind a live PSP's connector, with its credentials, to an account's method."""
    checked_id = checked(account_id, mode, method, psp_id, credentials)
    bound = deps.bindings().bind(checked_id, mode, method, psp_id, credentials, iso(datetime.now(UTC)))
    return answers.ConnectorBinding.of(bound)


def checked(account_id: str, mode: str, method: str, psp_id: str, credentials: dict[str, str]) -> str:
    """The account's id, once the binding of `psp_id` with `credentials` to its method holds (a
    live PSP or an aggregator that carries the method, with a connector, every credential it needs
    and none it does not know); else the refusal, with the field named."""
    account = home_account(account_id)
    if mode != "live":
        raise _refuse("mode", "invalid_value", "Test traffic always goes to the simulator; bind live connectors only.")
    if method not in BINDING_METHODS:
        raise ServiceError(404, "not_found", f"No such method: {method} (one of {', '.join(BINDING_METHODS)}).")
    connector = LIVE_CONNECTORS.get(psp_id)
    rails = [PSPS[rail] for rail in connector.rails] if connector is not None else []
    if rails:  # an aggregator: it must carry a live PSP of the method
        if not any(mode in rail.modes and rail.carries(*BINDING_METHODS[method]) for rail in rails):
            raise _refuse("psp_id", "invalid_value", f"{psp_id} does not carry {method}.")
    else:
        psp = PSPS.get(psp_id)
        if psp is None or mode not in psp.modes or not psp.carries(*BINDING_METHODS[method]):
            raise _refuse("psp_id", "invalid_value", f"{psp_id} is not a live PSP that carries {method}.")
    if connector is None:
        reason = NOT_CONNECTED.get(psp_id, f"There is no live connector for {psp_id} yet.")
        raise _refuse("psp_id", "invalid_value", reason)
    missing = [name for name in connector.required if not credentials.get(name)]
    unknown = sorted(set(credentials) - set(connector.required) - set(connector.optional))
    errors = [FieldError(f"credentials.{name}", "missing", "required") for name in missing]
    errors += [FieldError(f"credentials.{name}", "unknown", "not a credential of this connector") for name in unknown]
    if errors:
        raise ServiceError(
            400, "invalid_request", f"The credentials of {psp_id} are incomplete or wrong.", errors=errors
        )
    return account.account_id


def list_bindings(account_id: str) -> answers.ConnectorBindingList:
    found = deps.bindings().of_account(home_account(account_id).account_id)
    return answers.ConnectorBindingList(bindings=[answers.ConnectorBinding.of(binding) for binding in found])


def unbind(account_id: str, mode: str, method: str) -> answers.Unbinding:
    account = home_account(account_id)
    if not deps.bindings().unbind(account.account_id, mode, method):
        raise ServiceError(404, "not_found", "Nothing is bound for this mode and method.")
    return answers.Unbinding.of({"account_id": account.account_id, "mode": mode, "method": method, "bound": False})


def bind_route(
    account_id: str, mode: str, method: str, psp_id: str, credentials: dict[str, str], preference: int, cost: int
) -> FurtherRoute:
    """A further route of an account's method: checked as a binding is (the PSP's connector, the
    method, the credentials' fields), then sealed beside the binding."""
    checked_id = checked(account_id, mode, method, psp_id, credentials)
    try:
        bound = deps.bindings().bind_route(
            checked_id, mode, method, psp_id, credentials, preference, cost, iso(datetime.now(UTC))
        )
    except LookupError:
        raise ServiceError(
            409, "no_connector_binding", "Bind the method first; a further route comes beside it."
        ) from None
    return FurtherRoute.of(bound)
