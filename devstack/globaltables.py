"""DynamoDB global tables played locally: moto keeps one independent table per region, so a
replicator follows each replica's stream and applies its changes to the other replicas,
asynchronously, as AWS does. A change that a replica already has (its own echo) is skipped."""

from __future__ import annotations

import logging
import threading
from typing import Any

import boto3

log = logging.getLogger("devstack.globaltables")


class GlobalTableReplicator(threading.Thread):
    def __init__(self, name: str, regions: list[str], endpoint: str, poll_seconds: float = 0.1) -> None:
        super().__init__(name=f"replicate:{name}", daemon=True)
        self.table = name
        self.poll_seconds = poll_seconds
        self.stopping = threading.Event()
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

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.replicate_once()
            except Exception:  # keep replicating, like the managed service
                if not self.stopping.is_set():
                    log.exception("replication of %s failed", self.table)
            self.stopping.wait(self.poll_seconds)

    def replicate_once(self) -> None:
        for (region, shard), iterator in list(self.iterators.items()):
            if iterator is None:
                continue
            streams = self.clients[region][1]
            response = streams.get_records(ShardIterator=iterator, Limit=1000)
            self.iterators[(region, shard)] = response.get("NextShardIterator")
            for record in response.get("Records", []):
                for target in self.clients:
                    if target != region:
                        self.apply(target, record)

    def apply(self, region: str, record: dict[str, Any]) -> None:
        dynamodb = self.clients[region][0]
        change = record["dynamodb"]
        current = dynamodb.get_item(TableName=self.table, Key=change["Keys"], ConsistentRead=True).get("Item")
        if record["eventName"] == "REMOVE":
            if current is not None:
                dynamodb.delete_item(TableName=self.table, Key=change["Keys"])
                self.applied += 1
        elif current != change["NewImage"]:
            dynamodb.put_item(TableName=self.table, Item=change["NewImage"])
            self.applied += 1
