"""The local stack: moto in server mode, every regional stack of samconfig.toml created from
template.yaml, their APIs on localhost, their event source mappings running, and
.local/stack.json telling scripts and tests where everything is."""

from __future__ import annotations

import json
import logging
import os
import secrets
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
from werkzeug.serving import BaseWSGIServer, make_server

from devstack.apigw import ApiDefinition, RestApi, Route
from devstack.changes import TableChanges
from devstack.collection_demo import BOOTSTRAP_REALM, LICENCE_ROUTE, seed_collection
from devstack.dashboard_demo import create_user
from devstack.esm import DynamoDBStreamEventSource, ScheduleEventSource, SqsEventSource, parse_filters
from devstack.globaltables import GlobalTableReplicator
from devstack.lambda_api import LambdaApi
from devstack.lambdas import FunctionRuntime, InvocationError, close_all
from devstack.licence import DEFAULT_ISSUER, generate_issuer_key, one_line
from devstack.moto_server import IDENTITY_PATH
from devstack.oidc import OidcIssuer, private_pem
from devstack.ports import (
    API_SLOTS,
    GATEWAY_TLS_SLOT,
    LAMBDA_SLOT,
    OIDC_SLOT,
    SECRET_SCANNING_SLOT,
    needed,
    refusal,
    region_base,
    taken,
)
from devstack.provision import ProvisionedStack, provision
from devstack.requestlog import RequestLines
from devstack.secret_scanning import KEY_IDENTIFIER, KeyServer
from devstack.seed import seed_billers, seed_region
from devstack.template import Intrinsics, load_samconfig, load_template, parameter_values
from devstack.tls import ClientCertHandler, ServerCertificates
from mzpay.domain.access.client_certs import new_ca

log = logging.getLogger("devstack")
ROOT = Path(__file__).resolve().parent.parent
OPERATOR_SECRET = "OperatorTokenSecret"
SEED_ROUTE = ("POST", "/v1/accounts")  # a region whose management API has it gets a demo account
PARTNER_ROUTE = ("PUT", "/v1/accounts/{account_id}/partner")  # ... and a partner one when it has this
BILLERS_ROUTE = ("POST", "/v1/billers")  # the simulated billers of docs/bills.md are seeded through it
# What differs locally: webhook retries keep the production schedule (base 300 s, full jitter)
# with time scaled, a minute of schedule per second (WEBHOOK_RETRY_TIME_SCALE, docs/webhooks.md:
# 20 attempts take about an hour, not 3 days; a receiver back within seconds gets the event), and
# receivers on localhost may be called (set in the functions' environment, never in the template).
# moto plays SES and SNS here, so test-mode messages are sent (to moto) and read back by the tests
LOCAL_PARAMETERS = {"ReconcileFirstSeconds": "1", "TestModeMessages": "deliver"}
# The tests send many messages to the same few addresses at any hour: locally a recipient's cap is
# high and SMS have no quiet hours (their tests freeze the clock: docs/notifications.md)
LOCAL_MESSAGE_PARAMETERS = {"MessagesDailyCap": "1000", "SmsQuietHours": "none"}
LOCAL_WEBHOOK_TIME_SCALE = 1 / 60
# The collection surface's identity provider is the local OIDC issuer on loopback, over http.
LOCAL_ENVIRONMENT = {
    "WEBHOOK_ALLOW_LOOPBACK": "true",
    "OIDC_ALLOW_LOOPBACK": "true",
    "WEBHOOK_RETRY_TIME_SCALE": repr(LOCAL_WEBHOOK_TIME_SCALE),
}
# moto on a busy machine (two test workers, each with a stack, on two cores) answers slower than
# AWS: a transaction queued behind others may take longer than the functions' 5 s read timeout,
# and the functions would rightly answer 503. Talking to moto directly, the functions wait longer;
# behind a fault proxy (a test playing a flaky network) they keep AWS's timeouts.
LOCAL_AWS_TIMEOUTS = {"AWS_CONNECT_TIMEOUT_SECONDS": "10", "AWS_READ_TIMEOUT_SECONDS": "20"}
WARM_AT_ONCE = 2 * (os.cpu_count() or 2)  # execution environments started at once by the warm-up
COLLECTION_AUDIENCE = "mzpay-collection"
# stack.json's `regions` and the peers a 421 wrong_region names (PeerRegionUrls): the three APIs;
# the dashboard's URL is in its region's `demo` block, with the demo owner (docs/dashboard.md)
APIS = ("gateway", "collection", "management")
DASHBOARD = "dashboard"


def api_name(logical_id: str) -> str:
    """GatewayApi -> gateway: the name a stack.json entry and a port slot use."""
    return logical_id.removesuffix("Api").lower()


@dataclass
class RegionStack:
    """One regional stack running locally."""

    env: str
    provisioned: ProvisionedStack
    runtimes: dict[str, FunctionRuntime]
    servers: dict[str, BaseWSGIServer] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    pollers: list[Any] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)
    routes: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # API logical id -> (method, path)

    def stop(self) -> None:
        """Stop serving and polling (a long poll in flight is not waited for: its thread is a
        daemon, and what it may still receive returns to the queue), then every execution
        environment at once."""
        for poller in self.pollers:
            poller.stop()
        for server in self.servers.values():
            server.shutdown()
            server.server_close()
        deadline = time.monotonic() + 5
        for poller in self.pollers:
            if not isinstance(poller, SqsEventSource):
                poller.join(timeout=max(0.0, deadline - time.monotonic()))


class PortsTaken(RuntimeError):
    """A port the stack needs is taken: it starts nothing (devstack.ports.refusal says which)."""


def start_moto(host: str, port: int, log_file: Path | None) -> tuple[subprocess.Popen[bytes], TableChanges]:
    """moto in server mode, in its own process (its GIL is not ours), and the tables it writes
    (devstack.changes). moto exits with this process: it reads our end of its standard input."""
    output = open(log_file, "ab") if log_file else subprocess.DEVNULL  # noqa: SIM115 - lives as long as moto
    changes_read, changes_write = os.pipe()
    identity = secrets.token_hex(16)  # what our moto answers at IDENTITY_PATH, and no other server
    try:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "devstack.moto_server", "--exit-with-stdin"),
                *("--changes-fd", str(changes_write), "--identity", identity, "-H", host, "-p", str(port)),
            ],
            stdin=subprocess.PIPE,
            stdout=output,
            stderr=subprocess.STDOUT,
            pass_fds=(changes_write,),
            start_new_session=True,  # a terminal's Ctrl-C is for the stack, which stops moto last
        )
    finally:
        os.close(changes_write)
    changes = TableChanges(changes_read)
    changes.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{host}:{port}{IDENTITY_PATH}", timeout=1) as answer:
                said = answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError:  # an HTTP server answers there, and it is not our moto
            said = ""
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"moto server exited with {process.returncode}") from None
            time.sleep(0.1)
            continue
        if said != identity:  # another program got the port first: provision nothing into it
            process.kill()
            raise PortsTaken(refusal({port: "moto"}))
        return process, changes
    process.kill()
    raise RuntimeError("moto server did not start within 30 s")


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=5, check=False
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def build_region(
    env: str,
    *,
    template_path: Path,
    samconfig_path: Path,
    aws_endpoint: str,
    local_overrides: dict[str, str],
    seed_secrets: dict[str, str],
    function_endpoint: str | None = None,
    function_log: Path | None = None,
    timeout_patience: float = 1.0,
) -> RegionStack:
    """Create `env`'s resources and runtimes (nothing served yet)."""
    template = load_template(template_path)
    config = load_samconfig(samconfig_path, env)
    declared = template.get("Parameters") or {}
    overrides = {**config["parameter_overrides"], **{k: v for k, v in local_overrides.items() if k in declared}}
    stack_name = config["stack_name"]
    region = config["region"]
    intrinsics = Intrinsics(
        parameters=parameter_values(template, overrides),
        pseudo={
            "AWS::Region": region,
            "AWS::AccountId": "123456789012",
            "AWS::StackName": stack_name,
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
            "AWS::StackId": f"local/{stack_name}",
        },
        conditions=template.get("Conditions") or {},
    )
    provisioned = provision(
        template,
        intrinsics,
        region=region,
        stack_name=stack_name,
        endpoint=aws_endpoint,
        root=template_path.parent,
        seed_secrets=seed_secrets,
    )
    for spec in provisioned.functions.values():
        spec.environment.update(LOCAL_ENVIRONMENT)
        if function_endpoint is None:
            spec.environment.update(LOCAL_AWS_TIMEOUTS)
    # The functions may reach AWS through another endpoint (a test's fault proxy in front of moto).
    endpoint = function_endpoint or aws_endpoint
    functions = provisioned.functions.items()
    runtimes = {
        logical: FunctionRuntime(spec, endpoint, log_file=function_log, timeout_patience=timeout_patience)
        for logical, spec in functions
    }
    return RegionStack(env=env, provisioned=provisioned, runtimes=runtimes)


def _routes(stack: RegionStack) -> dict[str, list[Route]]:
    """Routes per API logical id, from the functions' Api events."""
    intrinsics = stack.provisioned.intrinsics
    api_by_id = {props["api_id"]: logical for logical, props in stack.provisioned.apis.items()}
    routes: dict[str, list[Route]] = {logical: [] for logical in stack.provisioned.apis}
    for logical, spec in stack.provisioned.functions.items():
        for event in spec.events.values():
            if event.get("Type") != "Api":
                continue
            props = intrinsics.resolve(event.get("Properties") or {})
            api_logical = api_by_id[props["RestApiId"]]
            api_props = stack.provisioned.apis[api_logical]
            default = (api_props.get("Auth") or {}).get("DefaultAuthorizer")
            chosen = (props.get("Auth") or {}).get("Authorizer", default)
            authorizer = None if chosen in (None, "NONE", "AWS_IAM") else chosen
            routes[api_logical].append(Route(props["Method"].upper(), props["Path"], logical, authorizer))
    return routes


def serve_apis(stack: RegionStack, host: str, port_base: int) -> None:
    """Serve each API of `stack` on its port (base + slot)."""
    function_by_arn = {spec.arn: logical for logical, spec in stack.provisioned.functions.items()}
    for logical, routes in _routes(stack).items():
        stack.routes[logical] = {(route.method, route.path) for route in routes}
        acl = stack.provisioned.api_web_acls.get(logical)
        definition = ApiDefinition.from_template(
            logical,
            stack.provisioned.apis[logical],
            stack.provisioned.region,
            routes,
            function_by_arn,
            stack.provisioned.web_acls[acl] if acl else None,
        )
        name = api_name(logical)
        port = port_base + API_SLOTS.get(name, 3 + len(stack.servers))
        server = make_server(
            host, port, RestApi(definition, stack.runtimes), threaded=True, request_handler=RequestLines
        )
        server.mzpay_name = f"{stack.env}:{name}"  # type: ignore[attr-defined]  # the request lines' API
        thread = threading.Thread(target=server.serve_forever, name=f"{stack.env}:{name}", daemon=True)
        thread.start()
        stack.servers[name] = server
        stack.threads.append(thread)
        stack.urls[name] = f"http://{host}:{port}"


def start_event_sources(
    stack: RegionStack,
    session: boto3.session.Session,
    aws_endpoint: str,
    changes: TableChanges | None = None,
    ready: threading.Event | None = None,
) -> None:
    """Start each function's event source mappings; `changes`: moto's table changes, which wake
    the stream pollers (without, they poll); `ready`: set once the stack is up (the schedules
    start their clocks then, so no scheduled function runs while the stack warms up and seeds)."""
    intrinsics = stack.provisioned.intrinsics
    queues = {
        arn: url
        for (lid, attr), arn in intrinsics.attrs.items()
        if attr == "Arn"
        for url in [intrinsics.refs.get(lid)]
        if isinstance(url, str) and url.startswith("http")
    }
    for logical, spec in stack.provisioned.functions.items():
        runtime = stack.runtimes[logical]
        for event in spec.events.values():
            kind = event.get("Type")
            if kind == "Api":
                continue
            props = intrinsics.resolve(event.get("Properties") or {})
            if props.get("Enabled") is False:
                continue
            report = "ReportBatchItemFailures" in (props.get("FunctionResponseTypes") or [])
            filters = parse_filters(props.get("FilterCriteria"))
            if kind == "SQS":
                poller: Any = SqsEventSource(
                    runtime,
                    session,
                    aws_endpoint,
                    queue_url=queues[props["Queue"]],
                    queue_arn=props["Queue"],
                    batch_size=props.get("BatchSize", 10),
                    report_batch_item_failures=report,
                    filters=filters,
                    maximum_concurrency=(props.get("ScalingConfig") or {}).get("MaximumConcurrency"),
                )
            elif kind == "DynamoDB":
                on_failure = ((props.get("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination")
                if on_failure is not None and on_failure not in queues:
                    raise NotImplementedError(f"{logical}: only an SQS queue of the stack is emulated as OnFailure")
                poller = DynamoDBStreamEventSource(
                    runtime,
                    session,
                    aws_endpoint,
                    stream_arn=props["Stream"],
                    batch_size=props.get("BatchSize", 100),
                    starting_position=props.get("StartingPosition", "LATEST"),
                    report_batch_item_failures=report,
                    filters=filters,
                    maximum_retry_attempts=props.get("MaximumRetryAttempts", -1),
                    maximum_record_age_seconds=props.get("MaximumRecordAgeInSeconds", -1),
                    bisect_on_error=props.get("BisectBatchOnFunctionError", False),
                    on_failure_queue_url=queues[on_failure] if on_failure else None,
                    changes=changes,
                )
            elif kind == "Schedule":
                poller = ScheduleEventSource(runtime, session, aws_endpoint, schedule=props["Schedule"], ready=ready)
            else:
                raise NotImplementedError(f"{logical}: event source type {kind} is not emulated")
            poller.start()
            stack.pollers.append(poller)


class LocalStack:
    """Everything `make run` starts, and how to stop it."""

    def __init__(
        self,
        *,
        envs: Sequence[str],
        template: Path,
        samconfig: Path,
        host: str,
        moto_port: int,
        port_base: int,
        state_file: Path,
        moto_log: Path | None = None,
        function_log: Path | None = None,
        warm: bool = True,
        function_aws_endpoint: str | None = None,
        timeout_patience: float = 1.0,
    ):
        self.envs = list(envs)
        self.function_aws_endpoint = function_aws_endpoint
        self.timeout_patience = timeout_patience
        self.template = template
        self.samconfig = samconfig
        self.host = host
        self.moto_port = moto_port
        self.port_base = port_base
        self.state_file = state_file
        self.ready = threading.Event()  # set once stack.json is written: the schedules start then
        self.moto_log = moto_log
        self.function_log = function_log
        self.warm = warm
        self.operator_token = secrets.token_hex(32)  # never starts with "-", which a command line reads as an option
        self.moto: subprocess.Popen[bytes] | None = None
        self.changes: TableChanges | None = None
        self.regions: dict[str, RegionStack] = {}
        self.replicators: list[GlobalTableReplicator] = []
        self.demo: dict[str, dict[str, Any]] = {}
        self.oidc: OidcIssuer | None = None
        self.scanning_keys: KeyServer | None = None
        self.tls = ServerCertificates()
        self.tls_urls: dict[str, str] = {}
        self.lambda_urls: dict[str, str] = {}
        self.licence_signing_key, self.licence_public_key = generate_issuer_key()

    @property
    def aws_endpoint(self) -> str:
        return f"http://{self.host}:{self.moto_port}"

    def port_base_of(self, index: int) -> int:
        return region_base(self.port_base, index)

    def start(self) -> dict[str, Any]:
        busy = taken(self.host, needed(self.moto_port, self.port_base, len(self.envs)))
        if busy:  # before anything starts: nothing is provisioned into another stack's moto
            raise PortsTaken(refusal(busy))
        self.moto, self.changes = start_moto(self.host, self.moto_port, self.moto_log)
        self.oidc = OidcIssuer(self.host, self.port_base + OIDC_SLOT, COLLECTION_AUDIENCE).start()
        self.scanning_keys = KeyServer(self.host, self.port_base + SECRET_SCANNING_SLOT).start()
        bootstrap = self.oidc.realms[BOOTSTRAP_REALM].issuer
        planned = {
            env: {
                name: f"http://{self.host}:{self.port_base_of(i) + slot}"
                for name, slot in API_SLOTS.items()
                if name in APIS
            }
            for i, env in enumerate(self.envs)
        }
        for index, env in enumerate(self.envs):
            peers = ",".join(
                f"{other}.{name}={url}" for other, apis in planned.items() if other != env for name, url in apis.items()
            )
            local_overrides = {
                **LOCAL_PARAMETERS,
                **LOCAL_MESSAGE_PARAMETERS,
                "GitCommit": _git_commit(),
                "BuildDate": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "PublicGatewayUrl": planned[env]["gateway"],  # checkout_url points at the local gateway
                "PublicCollectionUrl": planned[env]["collection"],  # and payment_link at the local collection API
                "LicenceIssuerPublicKey": one_line(self.licence_public_key),
                "CollectionOidcIssuer": bootstrap,
                "CollectionOidcJwksUri": f"{bootstrap}/jwks",
                "CollectionApiAudience": COLLECTION_AUDIENCE,
                "SecretScanningKeysUrls": f"github={self.scanning_keys.url}",
            }
            if peers:  # a single-region run keeps samconfig's peer URLs
                local_overrides["PeerRegionUrls"] = peers
            stack = build_region(
                env,
                template_path=self.template,
                samconfig_path=self.samconfig,
                aws_endpoint=self.aws_endpoint,
                local_overrides=local_overrides,
                seed_secrets={OPERATOR_SECRET: self.operator_token},
                function_endpoint=self.function_aws_endpoint,
                function_log=self.function_log,
                timeout_patience=self.timeout_patience,
            )
            self.regions[env] = stack
            session = boto3.session.Session(
                aws_access_key_id="testing", aws_secret_access_key="testing", region_name=stack.provisioned.region
            )
            start_event_sources(stack, session, self.aws_endpoint, self.changes, self.ready)
            serve_apis(stack, self.host, self.port_base_of(index))
            self._serve_gateway_tls(stack, session, self.port_base_of(index) + GATEWAY_TLS_SLOT)
            self._serve_lambda_api(stack, self.port_base_of(index) + LAMBDA_SLOT)
        for stack in self.regions.values():
            for table, regions in stack.provisioned.global_tables.items():
                replicator = GlobalTableReplicator(table, regions, self.aws_endpoint, changes=self.changes)
                replicator.start()
                self.replicators.append(replicator)
        if self.warm:
            self._warm_all()
        for env, stack in self.regions.items():
            if "management" in stack.urls and SEED_ROUTE in stack.routes.get("ManagementApi", set()):
                partner = PARTNER_ROUTE in stack.routes.get("ManagementApi", set())
                self.demo[env] = seed_region(env, stack.urls["management"], self.operator_token, partner)
                if BILLERS_ROUTE in stack.routes.get("ManagementApi", set()):
                    seed_billers(stack.urls["management"], self.operator_token, self.demo[env]["account_id"])
        for env, stack in self.regions.items():
            if "collection" in stack.urls and LICENCE_ROUTE in stack.routes.get("CollectionApi", set()):
                account_id = self.demo.get(env, {}).get("account_id")
                assert self.oidc is not None
                material = seed_collection(
                    env, stack.urls["collection"], self.oidc, self.licence_signing_key, account_id
                )
                self.demo.setdefault(env, {}).update(material)
        for env, stack in self.regions.items():
            if "dashboard" in stack.urls and "account_id" in self.demo.get(env, {}):
                self.demo[env]["dashboard"] = {
                    "url": stack.urls["dashboard"],
                    "owner": self._dashboard_owner(stack, env),
                }
        state = self.state()
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.state_file.with_suffix(".tmp")
        tmp.unlink(missing_ok=True)
        # The operator token, the demo keys and the issuers' private keys: readable by the owner only.
        descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as output:
            output.write(json.dumps(state, indent=2) + "\n")
        os.replace(tmp, self.state_file)
        self.ready.set()
        return state

    def _dashboard_owner(self, stack: RegionStack, env: str) -> dict[str, str]:
        """The demo account's owner on the region's dashboard, TOTP set up (docs/dashboard.md)."""
        refs = stack.provisioned.intrinsics.refs
        return create_user(
            endpoint=self.aws_endpoint,
            region=stack.provisioned.region,
            pool_id=refs["DashboardUserPool"],
            client_id=refs["DashboardUserPoolClient"],
            accounts_table=refs["AccountsTable"],
            account_id=self.demo[env]["account_id"],
            email=f"owner@{env}.demo.mzpay.test",
            role="owner",
        )

    def _serve_gateway_tls(self, stack: RegionStack, session: Any, port: int) -> None:
        """The gateway over TLS, a client certificate optional and checked against the region's
        client CA, which is made here (as the first issuance would make it on AWS) so the
        listener trusts it from the start."""
        if "gateway" not in stack.servers:
            return
        key, certificate = new_ca(stack.env, datetime.now(UTC))
        name = stack.provisioned.functions["GatewayAccessFunction"].environment["CLIENT_CA_SECRET"]
        session.client("secretsmanager", endpoint_url=self.aws_endpoint).create_secret(
            Name=name, SecretString=json.dumps({"key": key, "certificate": certificate})
        )
        app = stack.servers["gateway"].app
        server = make_server(
            self.host,
            port,
            app,
            threaded=True,
            ssl_context=self.tls.context(certificate),
            request_handler=ClientCertHandler,
        )
        thread = threading.Thread(target=server.serve_forever, name=f"{stack.env}:gateway-tls", daemon=True)
        thread.start()
        server.mzpay_name = f"{stack.env}:gateway-tls"  # type: ignore[attr-defined]
        stack.servers["gateway_tls"] = server
        stack.threads.append(thread)
        self.tls_urls[stack.env] = f"https://{self.host}:{port}"

    def _serve_lambda_api(self, stack: RegionStack, port: int) -> None:
        """The region's Lambda Invoke API: any function on an event of your own (make invoke)."""
        server = make_server(self.host, port, LambdaApi(stack.runtimes), threaded=True, request_handler=RequestLines)
        server.mzpay_name = f"{stack.env}:lambda"  # type: ignore[attr-defined]
        thread = threading.Thread(target=server.serve_forever, name=f"{stack.env}:lambda", daemon=True)
        thread.start()
        stack.servers["lambda"] = server
        stack.threads.append(thread)
        self.lambda_urls[stack.env] = f"http://{self.host}:{port}"

    def _warm_all(self) -> None:
        """Start one execution environment per function, a few at a time: each is an interpreter
        importing its handler, bound by the CPU, so starting all 65 at once finishes no sooner
        and, on a busy machine, lets each take long enough to fail its init timeout."""
        runtimes = [runtime for stack in self.regions.values() for runtime in stack.runtimes.values()]
        with ThreadPoolExecutor(WARM_AT_ONCE, thread_name_prefix="warm") as pool:
            for runtime, warmed in [(runtime, pool.submit(runtime.warm)) for runtime in runtimes]:
                try:
                    warmed.result()
                except InvocationError:  # a busy machine: once more, then it starts on first use
                    try:
                        runtime.warm()
                    except InvocationError as again:
                        log.warning("warm-up of %s: %s (it starts on first use)", runtime.spec.logical_id, again)

    def state(self) -> dict[str, Any]:
        """The documented .local/stack.json shape."""
        return {
            "aws_endpoint": self.aws_endpoint,
            "operator_token": self.operator_token,
            "regions": {  # every API but the dashboard (a fixture template's own APIs too)
                env: {n: u for n, u in stack.urls.items() if n != DASHBOARD} for env, stack in self.regions.items()
            },
            "aws_regions": {env: stack.provisioned.region for env, stack in self.regions.items()},
            "resources": {env: dict(stack.provisioned.physical) for env, stack in self.regions.items()},
            "demo": {env: self.demo.get(env, {}) for env in self.regions},
            "oidc": self._oidc_state(),
            "secret_scanning": self._secret_scanning_state(),
            "tls": {"ca_certificate": self.tls.ca_pem, "gateway": dict(self.tls_urls)},
            "lambda": dict(self.lambda_urls),
            "licence_issuer": {"issuer": DEFAULT_ISSUER, "signing_key": self.licence_signing_key},
        }

    def _secret_scanning_state(self) -> dict[str, Any]:
        """The local provider `github`: where its keys are, and the key that signs test reports."""
        if self.scanning_keys is None:
            return {}
        return {
            "provider": "github",
            "keys_url": self.scanning_keys.url,
            "key_identifier": KEY_IDENTIFIER,
            "signing_key": self.scanning_keys.private_pem,
        }

    def _oidc_state(self) -> dict[str, Any]:
        """The local OIDC issuer: the bootstrap issuer, the audience, and every realm's signing
        key (tests sign their own tokens with them)."""
        if self.oidc is None:
            return {}
        realm = self.oidc.realms[BOOTSTRAP_REALM]
        return {
            "issuer": realm.issuer,
            "token_endpoint": f"{realm.issuer}/token",
            "audience": COLLECTION_AUDIENCE,
            "realms": {
                name: {"issuer": r.issuer, "kid": r.kid, "signing_key": private_pem(r.key)}
                for name, r in self.oidc.realms.items()
            },
        }

    def stop(self) -> None:
        for replicator in self.replicators:
            replicator.stop()
        for stack in self.regions.values():
            stack.stop()
        close_all(runtime for stack in self.regions.values() for runtime in stack.runtimes.values())
        if self.oidc is not None:
            self.oidc.stop()
        if self.scanning_keys is not None:
            self.scanning_keys.stop()
        if self.moto is not None:
            self.moto.terminate()
            try:
                self.moto.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.moto.kill()
        if self.ready.is_set():  # a stack refused at start leaves the running one's file alone
            self.state_file.unlink(missing_ok=True)
