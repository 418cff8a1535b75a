"""DynamoDB global tables played locally: moto keeps one independent table per region, so a
replicator follows each replica's stream and applies its changes to the other replicas,
asynchronously, as AWS does. Each copy it writes comes back through the target's own stream;
the replicator remembers its copies and skips exactly those echoes, so a stale copy can never
travel back over a newer write."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import boto3

from devstack.changes import TableChanges
from devstack.threads import Loop

FOLLOWED_POLL_SECONDS = 5.0  # told each write by moto (devstack.changes): reading again is a safety net


class GlobalTableReplicator(Loop):
    def __init__(
        self,
        name: str,
        regions: list[str],
        endpoint: str,
        poll_seconds: float = 0.1,
        changes: TableChanges | None = None,
    ) -> None:
        super().__init__(f"replicate:{name}")
        self.table = name
        self.pause = poll_seconds if changes is None else FOLLOWED_POLL_SECONDS
        self.clients = {}
        self.iterators: dict[tuple[str, str], str | None] = {}
        for region in regions:
            session = boto3.session.Session(
                aws_access_key_id="testing", aws_secret_access_key="testing", region_name=region
            )
            dynamodb = session.client("dynamodb", endpoint_url=endpoint)
            streams = session.client("dynamodbstreams", endpoint_url=endpoint)
            self.clients[region] = (dynamodb, streams)
            arn = dynamodb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
            for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
                self.iterators[(region, shard["ShardId"])] = streams.get_shard_iterator(
                    StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
                )["ShardIterator"]
        self.applied = 0
        if changes is not None:
            for region in regions:
                changes.follow(region, name, self.wake)
        self.echoes: Counter[tuple[str, str, str]] = Counter()  # (region, key, image) copies still to come back

    def once(self) -> bool:
        return self.replicate_once()

    def replicate_once(self) -> bool:
        """Copy each replica's new changes to the others; True when there were any."""
        busy = False
        for (region, shard), iterator in list(self.iterators.items()):
            if iterator is None:
                continue
            streams = self.clients[region][1]
            response = streams.get_records(ShardIterator=iterator, Limit=1000)
            self.iterators[(region, shard)] = response.get("NextShardIterator")
            for record in response.get("Records", []):
                busy = True
                echo = _signature(region, record)
                if self.echoes[echo] > 0:  # our own copy coming back: already everywhere
                    self.echoes[echo] -= 1
                    continue
                for target in self.clients:
                    if target != region:
                        self.apply(target, record)
        return busy

    def apply(self, region: str, record: dict[str, Any]) -> None:
        dynamodb = self.clients[region][0]
        change = record["dynamodb"]
        if record["eventName"] == "REMOVE":
            dynamodb.delete_item(TableName=self.table, Key=change["Keys"])
        else:
            dynamodb.put_item(TableName=self.table, Item=change["NewImage"])
        self.echoes[_signature(region, record)] += 1
        self.applied += 1


def _signature(region: str, record: dict[str, Any]) -> tuple[str, str, str]:
    change = record["dynamodb"]
    image = "REMOVE" if record["eventName"] == "REMOVE" else json.dumps(change["NewImage"], sort_keys=True)
    return region, json.dumps(change["Keys"], sort_keys=True), image
