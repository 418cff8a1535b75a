"""What the stores kept in one DynamoDB table share: the table, its low-level client (for
transactions) and its name; the payments-table stores whose transitions write their events in the
same transaction also know the events table. Each store still names its tables in its own
`from_env` (`env("PAYMENTS_TABLE")`), which is where devstack.code_reach reads them."""

from __future__ import annotations

from mzpay.store.aws import table


class TableStore:
    """A store kept in the table `table_name`."""

    def __init__(self, table_name: str) -> None:
        self.table = table(table_name)
        self.client = self.table.meta.client
        self.name = table_name


class PaymentsTableStore(TableStore):
    """A store of the PaymentsTable whose transitions write their events to the EventsTable."""

    def __init__(self, table_name: str, events_table: str) -> None:
        super().__init__(table_name)
        self.events_name = events_table
