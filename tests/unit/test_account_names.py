"""Finding accounts by name: the folding a search and the index share."""

from __future__ import annotations

from mzpay.domain.accounts.tenants import MAX_FOLDED, folded
from mzpay.store.account_names import name_item


def test_names_fold_accents_case_and_spaces() -> None:
    assert folded("  Loja   Maçã  ") == "loja maca"
    assert folded("FARMÁCIA Ñandú") == "farmacia nandu"
    assert folded("Straße") == "strasse"
    assert folded("\u0301") == ""  # a lone combining mark: nothing to search by
    assert len(folded("a" * 500)) == MAX_FOLDED


def test_the_index_item_sorts_by_folded_name_then_id() -> None:
    assert name_item("01JACC", "Loja Maçã", "mz") == {
        "pk": "ACCOUNT_NAMES#mz",
        "sk": "loja maca#01JACC",
        "name": "Loja Maçã",
        "account_id": "01JACC",
    }
