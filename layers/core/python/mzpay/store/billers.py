"""Billers and bill products in the payments table (the region's catalogue, shared by every
account and mode): BILLER#<biller_id>/BILLER (gsi1: BILLERS/<biller_id>) and
BILLPRODUCT#<product_id>/PRODUCT (gsi1: BILLER#<biller_id>#PRODUCTS/<product_id>). Changes are
versioned updates: of two operators changing one biller, one wins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mzpay.domain.bills.billers import Biller, BillProduct
from mzpay.domain.common.errors import ServiceError
from mzpay.store.aws import in_index, index_entry, query_all
from mzpay.store.base import InPaymentsTable, keyed


class IdTaken(Exception):
    """A biller or product with this id exists already."""


_biller_key = keyed("BILLER", "BILLER")


_product_key = keyed("BILLPRODUCT", "PRODUCT")


class Billers(InPaymentsTable):
    def create(self, biller: Biller) -> None:
        """IdTaken when the id is used."""
        index = index_entry("BILLERS", biller.biller_id)
        self.put_unique({**_biller_key(biller.biller_id), **biller.item(), **index}, IdTaken)

    def get(self, biller_id: str) -> Biller | None:
        return self.read_item(Biller, _biller_key(biller_id))

    def listing(self) -> list[Biller]:
        return [Biller.model_validate(item) for item in query_all(self.table, **in_index("BILLERS"))]

    def change(self, biller: Biller, changes: dict[str, Any]) -> Biller:
        """Apply `changes` if the biller is as it was read (else 409 invalid_state)."""
        return self.change_versioned(_biller_key(biller.biller_id), biller, changes, _moved("biller"))

    def create_product(self, product: BillProduct) -> None:
        """IdTaken when the id is used."""
        index = index_entry(f"BILLER#{product.biller_id}#PRODUCTS", product.product_id)
        self.put_unique({**_product_key(product.product_id), **product.item(), **index}, IdTaken)

    def product(self, product_id: str) -> BillProduct | None:
        return self.read_item(BillProduct, _product_key(product_id))

    def products(self, biller_id: str) -> list[BillProduct]:
        items = query_all(self.table, **in_index(f"BILLER#{biller_id}#PRODUCTS"))
        return [BillProduct.model_validate(item) for item in items]

    def change_product(self, product: BillProduct, changes: dict[str, Any]) -> BillProduct:
        return self.change_versioned(_product_key(product.product_id), product, changes, _moved("product"))


def _moved(what: str) -> Callable[[], ServiceError]:
    return lambda: ServiceError(409, "invalid_state", f"The {what} changed meanwhile; read it and retry.")
