"""The nested templates: how every reader sees them (devstack.template.load_template merges them
into one stack as CloudFormation runs it) and the per-stack resource budget (devstack.resource_count)."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from devstack import resource_count
from devstack.template import load_template, read_template, template_files, template_text

ROOT = Path(__file__).resolve().parents[2]

PARENT = """\
Transform: AWS::Serverless-2016-10-31
Parameters:
  Region:
    Type: String
  Replicas:
    Type: CommaDelimitedList
    Default: a,b
Resources:
  Layer:
    Type: AWS::Serverless::LayerVersion
    Properties:
      ContentUri: layers/core/
  Account:
    Type: AWS::ApiGateway::Account
  Data:
    Type: AWS::Serverless::Application
    Properties:
      Location: stacks/data.yaml
      Parameters:
        Region: !Ref Region
        Replicas: !Join [",", !Ref Replicas]
  Api:
    Type: AWS::Serverless::Application
    DependsOn: Account
    Properties:
      Location: stacks/api.yaml
      Parameters:
        Region: !Ref Region
        Layer: !Ref Layer
        Table: !GetAtt Data.Outputs.Table
        TableArn: !GetAtt Data.Outputs.TableArn
Outputs:
  Url:
    Value: !GetAtt Api.Outputs.Url
"""

DATA = """\
Parameters:
  Region:
    Type: String
  Replicas:
    Type: CommaDelimitedList
Conditions:
  IsHome: !Equals [!Ref Region, mz]
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub mzpay-${Region}-table
      Replicas: !Ref Replicas
Outputs:
  Table:
    Value: !Ref Table
  TableArn:
    Value: !GetAtt Table.Arn
"""

API = """\
Transform: AWS::Serverless-2016-10-31
Parameters:
  Memory:
    Type: Number
    Default: 512
  Region:
    Type: String
  Layer:
    Type: String
  Table:
    Type: String
  TableArn:
    Type: String
Conditions:
  IsHome: !Equals [!Ref Region, mz]
Globals:
  Function:
    Layers: [!Ref Layer]
Resources:
  Function:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: ../functions/a/
      MemorySize: !Ref Memory
      Environment:
        Variables:
          TABLE: !Ref Table
          WHERE: !Sub ${Table} in ${Region}
          HOME: !If [IsHome, home, away]
      Policies:
        - Statement:
            - Effect: Allow
              Action: [dynamodb:GetItem]
              Resource: !Sub ${TableArn}/index/*
Outputs:
  Url:
    Value: !Sub https://${Function}.example/${Table}
"""


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "template.yaml").write_text(PARENT)
    (tmp_path / "stacks" / "data.yaml").write_text(DATA)
    (tmp_path / "stacks" / "api.yaml").write_text(API)
    return tmp_path / "template.yaml"


def test_nested_templates_read_as_one_stack_in_the_parents_terms(nested: Path) -> None:
    template = load_template(nested)
    assert set(template["Resources"]) == {"Layer", "Account", "Table", "Function"}
    function = template["Resources"]["Function"]
    assert function["Properties"]["CodeUri"] == "functions/a/"  # relative to the root, as before
    assert function["Properties"]["MemorySize"] == "512"  # a default the parent did not pass
    assert function["DependsOn"] == "Account"  # the application's DependsOn holds for its resources
    assert function["Properties"]["Environment"]["Variables"] == {
        "TABLE": {"Ref": "Table"},  # the sibling's output, back to what it names
        "WHERE": {"Fn::Sub": "${Table} in ${Region}"},
        "HOME": {"Fn::If": ["IsHome", "home", "away"]},
    }
    statement = function["Properties"]["Policies"][0]["Statement"][0]
    assert statement["Resource"] == {"Fn::Sub": "${Table.Arn}/index/*"}
    assert template["Globals"] == {"Function": {"Layers": [{"Ref": "Layer"}]}}
    assert template["Conditions"] == {"IsHome": {"Fn::Equals": [{"Ref": "Region"}, "mz"]}}
    table = template["Resources"]["Table"]["Properties"]
    assert table["Replicas"] == {"Ref": "Replicas"}  # a list goes down joined and is the list again
    assert template["Outputs"]["Url"]["Value"] == {"Fn::Sub": "https://${Function}.example/${Table}"}
    assert template["NestedStacks"] == {
        "Data": {"Location": "stacks/data.yaml", "Resources": ["Table"]},
        "Api": {"Location": "stacks/api.yaml", "Resources": ["Function"]},
    }
    assert "Data" in read_template(nested)["Resources"]  # the file itself, as written
    assert template_files(nested) == [nested, nested.parent / "stacks/data.yaml", nested.parent / "stacks/api.yaml"]
    assert "CodeUri: ../functions/a/" in template_text(nested)  # the files as written, every one


def test_a_missing_parameter_or_clashing_names_are_refused(nested: Path) -> None:
    parent = nested.read_text()
    nested.write_text(parent.replace("        Layer: !Ref Layer\n", ""))
    with pytest.raises(ValueError, match=r"passes no value for stacks/api\.yaml's parameter Layer"):
        load_template(nested)
    nested.write_text(parent.replace("        Layer: !Ref Layer\n", "        Layer: !Ref Layer\n        Nope: x\n"))
    with pytest.raises(ValueError, match="Nope"):
        load_template(nested)
    nested.write_text(parent)
    (nested.parent / "stacks" / "data.yaml").write_text(
        DATA.replace("  Table:\n    Type: AWS::DynamoDB", "  Layer:\n    Type: AWS::DynamoDB")
    )
    with pytest.raises(ValueError, match="logical ids"):
        load_template(nested)
    (nested.parent / "stacks" / "data.yaml").write_text(DATA.replace("Region, mz]", "Region, sa]"))
    with pytest.raises(ValueError, match="Conditions IsHome differs"):
        load_template(nested)


def test_the_product_template_is_nested_and_each_part_owns_its_resources() -> None:
    template = load_template(ROOT / "template.yaml")
    parts = {name: set(stack["Resources"]) for name, stack in template["NestedStacks"].items()}
    assert set(parts) == {"Data", "Gateway", "Collection", "Management", "Dashboard", "Workers"}
    assert {"PaymentsTable", "WebhookQueue", "DataKey", "UploadsBucket", "AlarmTopic"} <= parts["Data"]
    assert {"GatewayApi", "GatewayPaymentsFunction"} <= parts["Gateway"]
    assert {"ManagementApi", "ManagementConsoleFunction"} <= parts["Management"]
    assert {"WebhookDispatcherFunction", "PaymentExpiryFunction"} <= parts["Workers"]
    assert {"DashboardUserPool", "DashboardUserPoolClient", "DashboardApi", "DashboardFunction"} <= parts["Dashboard"]
    root = read_template(ROOT / "template.yaml")["Resources"]
    assert {name for name, spec in root.items() if "Application" not in spec["Type"]} == {
        "CoreLayer",
        "ApiGatewayCloudWatchRole",
        "ApiGatewayAccount",
    }


def _queues(number: int) -> str:
    return "Resources:\n" + "".join(f"  Queue{i}:\n    Type: AWS::SQS::Queue\n" for i in range(number))


def _plain_count(path: Path) -> Counter[str]:
    return Counter(spec["Type"] for spec in read_template(path)["Resources"].values())


def test_the_budget_is_per_stack_and_a_stack_past_it_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "stacks").mkdir()
    root = tmp_path / "template.yaml"
    root.write_text(
        _queues(3)
        + "  Big:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n      TemplateURL: stacks/big.yaml\n"
    )
    (tmp_path / "stacks" / "big.yaml").write_text(_queues(250))
    files = template_files(root)
    assert resource_count.over_budget(files, count=_plain_count) == []
    (tmp_path / "stacks" / "big.yaml").write_text(_queues(251))
    assert resource_count.over_budget(files, count=_plain_count) == [str(tmp_path / "stacks" / "big.yaml")]
    assert "251 CloudFormation resources (budget 250, limit 500)" in capsys.readouterr().out


SAM_PYTHON = ROOT / ".venv-sam" / "bin" / "python"


def _resource_count(*templates: str) -> subprocess.CompletedProcess[str]:
    """`make validate`'s count, in .venv-sam where aws-sam-translator is."""
    command = [str(SAM_PYTHON), "-m", "devstack.resource_count", *templates]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=ROOT, timeout=300, check=False)


@pytest.mark.skipif(not SAM_PYTHON.exists(), reason="make install's .venv-sam (aws-sam-translator) is not there")
@pytest.mark.parametrize(("queues", "code"), [(250, 0), (251, 1)])
def test_make_validates_count_fails_past_250_after_sams_transform(tmp_path: Path, queues: int, code: int) -> None:
    (tmp_path / "template.yaml").write_text("Transform: AWS::Serverless-2016-10-31\n" + _queues(queues))
    done = _resource_count(str(tmp_path / "template.yaml"))
    assert done.returncode == code, done.stdout + done.stderr
    assert f"{queues} CloudFormation resources" in done.stdout


def test_what_devstack_permissions_prints_is_the_nested_templates_own_text() -> None:
    """`python -m devstack.permissions F` prints lines to paste into F's own (nested) template:
    another stack's resources by their parameters (`!Ref DataKeyArn`), never `!GetAtt DataKey.Arn`."""
    from devstack import permissions

    template = load_template(ROOT / "template.yaml")
    for part, stack in template["NestedStacks"].items():
        text = (ROOT / stack["Location"]).read_text(encoding="utf-8")
        for logical_id in sorted(set(stack["Resources"]) & set(permissions.functions(template))):
            assert permissions.statements_yaml(logical_id, template) in text, (part, logical_id)


@pytest.mark.skipif(not SAM_PYTHON.exists(), reason="make install's .venv-sam (aws-sam-translator) is not there")
def test_every_stack_of_the_product_is_within_the_budget() -> None:
    done = _resource_count()
    assert done.returncode == 0, done.stdout + done.stderr
    counted = [line.split(":")[0] for line in done.stdout.splitlines() if "CloudFormation resources" in line]
    assert counted == [str(path.relative_to(ROOT)) for path in template_files(ROOT / "template.yaml")]
