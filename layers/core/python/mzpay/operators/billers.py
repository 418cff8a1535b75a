"""Operators administer billers and their bill products (mzpay.domain.bills.billers, docs/bills.md):
create, read, list, change, pause, retire; add and retire products."""

from __future__ import annotations

from mzpay import deps
from mzpay.answers import billers as answers
from mzpay.domain.bills.billers import (
    ACTIVE,
    RETIRED,
    Biller,
    BillerIn,
    BillerPatch,
    BillProduct,
    ProductIn,
    check_biller_change,
    check_product,
    check_retirement,
    product_of,
)
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError, found
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.steps import audit
from mzpay.store.billers import IdTaken


def _biller(biller_id: str) -> Biller:
    return found(deps.billers().get(biller_id) if is_ulid(biller_id) else None, "biller")


def _taken(what: str) -> ServiceError:
    return ServiceError(409, "invalid_state", f"A {what} with this id exists already.")


def create_biller(request: BillerIn) -> answers.Biller:
    """A new active biller."""
    now = now_iso()
    fields = request.model_dump(exclude={"biller_id"})
    biller = Biller(
        biller_id=request.biller_id or new_id(), status=ACTIVE, version=1, created_at=now, updated_at=now, **fields
    )
    try:
        deps.billers().create(biller)
    except IdTaken:
        raise _taken("biller") from None
    shown = biller_view(biller)
    audit.observe("biller", biller.biller_id, after=shown.wire())
    return shown


def biller_view(biller: Biller, products: list[BillProduct] | None = None) -> answers.Biller:
    return answers.Biller.of({**biller.view(), "products": [p.view() for p in products or []]})


def read_biller(biller_id: str) -> answers.Biller:
    biller = _biller(biller_id)
    return biller_view(biller, deps.billers().products(biller_id))


def list_billers() -> answers.BillerList:
    billers = sorted(deps.billers().listing(), key=lambda b: b.biller_id)
    return answers.BillerList(
        object="list", data=[biller_view(b, deps.billers().products(b.biller_id)) for b in billers]
    )


def change_biller(biller_id: str, patch: BillerPatch) -> answers.Biller:
    """Change the fields given: 409 owned_by_origin for a commercial field of a biller its
    origin owns."""
    biller = _biller(biller_id)
    changes = patch.changes()
    check_biller_change(biller, changes)
    if not changes:
        return read_biller(biller_id)
    changed = deps.billers().change(biller, {**changes, "updated_at": now_iso()})
    return biller_view(changed, deps.billers().products(biller_id))


def retire_biller(biller_id: str) -> answers.Biller:
    """A retired biller takes no more quotes or payments; 409 owned_by_origin when its origin
    owns it."""
    biller = _biller(biller_id)
    check_retirement(biller)
    changed = deps.billers().change(biller, {"status": RETIRED, "updated_at": now_iso()})
    return biller_view(changed, deps.billers().products(biller_id))


def add_product(biller_id: str, request: ProductIn) -> answers.BillProduct:
    biller = _biller(biller_id)
    if biller.status == RETIRED:
        raise ServiceError(409, "invalid_state", "This biller is retired.")
    check_product(request)
    product = product_of(request.product_id or new_id(), biller_id, request, now_iso())
    try:
        deps.billers().create_product(product)
    except IdTaken:
        raise _taken("product") from None
    return answers.BillProduct.of(product.view())


def retire_product(biller_id: str, product_id: str) -> answers.BillProduct:
    product = deps.billers().product(product_id) if is_ulid(product_id) else None
    if product is None or product.biller_id != biller_id:
        raise ServiceError(404, "not_found", "No such product of this biller.")
    if product.status == RETIRED:
        raise ServiceError(409, "invalid_state", "This product is already retired.")
    retired = deps.billers().change_product(product, {"status": RETIRED, "updated_at": now_iso()})
    return answers.BillProduct.of(retired.view())
