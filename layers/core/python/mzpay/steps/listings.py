"""One page of a list read from the list indexes (mzpay.store.listings), for every surface that
lists (the gateway's lists, mzpay.cases.listings; the collection surface's payment records,
mzpay.collection.payments): the previous page's sealed token opened, the page read, the next
page's token sealed (mzpay.domain.common.page_tokens), bound to the account, modes, customers,
list and filters."""

from __future__ import annotations

import hashlib
import hmac
from typing import TypeVar

from mzpay import deps
from mzpay.domain.common import page_tokens
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.listing import Kind, ListRequest
from mzpay.store.listings import Scope
from mzpay.store.secrets import key_pepper

E = TypeVar("E", bound=Entity)


def _token_key() -> bytes:
    """The key that seals page tokens: derived from the installation's key pepper (a secret)."""
    return hmac.new(key_pepper().encode(), b"mzpay page tokens v1", hashlib.sha256).digest()


def page(kind: Kind, entity: type[E], scope: Scope, request: ListRequest) -> tuple[list[E], str | None]:
    """A page of `kind`'s list of `entity` for `scope`, and the next page's token (None: the last
    page); 400 invalid_request naming page_token for a token this list did not give."""
    binding = {
        "a": scope.account_id,
        "m": ",".join(scope.modes),
        "k": kind.name,
        "f": request.filters.digest(),
        "c": hashlib.sha256(",".join(sorted(scope.customers)).encode()).hexdigest()[:16],
    }
    key = _token_key()
    before = page_tokens.unseal(request.page_token, binding, key) if request.page_token else None
    found, position = deps.listings().page(entity, scope, request.filters, before, request.page_size)
    return found, (page_tokens.seal(position, binding, key) if position else None)
