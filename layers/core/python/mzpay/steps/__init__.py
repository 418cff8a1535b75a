"""Steps shared by several use cases (the layer below `mzpay.cases`): each composes domain rules
with stores and connectors. Nothing here imports `mzpay.cases` or `mzpay.http`."""
