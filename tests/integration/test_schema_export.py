"""`moecfg schema`: the JSON Schema generated from the field tables through pydantic; every example validates,
broken documents do not, and the schema carries the tables' descriptions and defaults."""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from moecfg.models.export import available_kinds, json_schema, kind_models
from integration_helpers import run  # noqa: F401  (pytest fixture)

ROOT = Path(__file__).resolve().parents[2]
# moecfg deployment documents only: not the settings files, nor the launch files (manifests, compose) of
# examples/launch/, which are checked by `moecfg check examples/` instead.
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*") if p.suffix in (".yaml", ".yml")
                  and p.name not in (".moecfg.yaml", ".moecfg.yml") and "launch" not in p.relative_to(ROOT).parts)
SCHEMA = json_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
A3 = {"product": "A3", "cann_version": "9.0.1", "bs": 128, "h": 7168, "k": 8, "ep_world_size": 32,
      "moe_expert_num": 256, "env": {"HCCL_BUFFSIZE": 1024}}


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_validates(path):
    docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    assert docs
    for doc in docs:
        errors = [e.message for e in VALIDATOR.iter_errors(doc)]
        assert errors == []


@pytest.mark.parametrize("change", [
    {"bs": "128"},  # a string where an integer belongs
    {"moe_expert_nums": 256},  # unknown key
    {"product": "A4"},
    {"quant_mode": True},
    {"env": {"HCCL_BUFFSIZE": "a lot"}},
    {"hccl_buffer_size": {"ep": 1024, "pp": 1}},
])
def test_broken_documents_are_rejected(change):
    assert not VALIDATOR.is_valid({**A3, **change})


def test_missing_required_key_is_rejected():
    assert VALIDATOR.is_valid(A3)
    assert not VALIDATOR.is_valid({k: v for k, v in A3.items() if k != "h"})


def test_aliases_and_env_strings_as_the_validator_accepts_them():
    assert VALIDATOR.is_valid({**A3, "product": "atlas-a3", "env": {"HCCL_BUFFSIZE": "1024", "OTHER_VAR": "x"}})


def test_every_field_has_its_description_and_default():
    ascend = json_schema("ascend")
    props = ascend["$defs"]["Ascend_DispatchCombineV2"]["properties"]
    fields = importlib.import_module("moecfg.backends.ascend.fields")
    for f in fields.OP_FIELDS["dispatch_combine_v2"]:
        assert props[f.name]["description"].startswith(f.doc or f.name)
    assert props["quant_mode"]["default"] == 0 and props["x_dtype"]["default"] == "bf16"
    assert "default" not in props["ep_rank_id"]  # absent by default: no `null` offered to editors


@pytest.mark.parametrize("kind", available_kinds())
def test_each_kind_alone(run, kind):
    res = run("schema", "--kind", kind)
    schema = json.loads(res.stdout)
    assert res.exit_code == 0 and schema["title"] == f"moecfg deployment file (`kind: {kind}`)"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_non_default_kind_needs_its_kind_key():
    deepep = next(p for p in EXAMPLES if "deepep" in p.name)
    doc = yaml.safe_load(deepep.read_text())
    assert VALIDATOR.is_valid(doc)
    assert not VALIDATOR.is_valid({k: v for k, v in doc.items() if k != "kind"})


def test_pydantic_models_accept_the_examples_too():
    from pydantic import ValidationError

    models = [m for k in available_kinds() for m in kind_models(k)]
    for path in EXAMPLES:
        for doc in yaml.safe_load_all(path.read_text()):
            ok = 0
            for m in models:
                try:
                    m.model_validate(doc)
                    ok += 1
                except ValidationError:
                    pass
            assert ok >= 1, path.name


def test_unknown_kind_is_a_usage_error(run):
    res = run("schema", "--kind", "nccl")
    assert res.exit_code == 2 and "one of ascend" in res.stderr


def test_check_path_imports_neither_pydantic_nor_rich(tmp_path):
    import subprocess
    import sys

    f = tmp_path / "x.yaml"
    f.write_text("product: A3\ncann_version: 9.0.1\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\n"
                 "moe_expert_num: 250  # moecfg: disable=MC201 -- padded\nenv:\n  HCCL_BUFFSIZE: 1024\n")
    (tmp_path / ".moecfg.yaml").write_text("fail-on: warning\nseverity:\n  MC013: error\n")
    code = ("import sys\nfrom moecfg.cli import main\ntry:\n    main(['check', '--format', 'text', sys.argv[1]])\n"
            "except SystemExit as e:\n    print('EXIT', e.code)\n"
            "print('HEAVY', sorted(m for m in ('pydantic', 'rich', 'jsonschema') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, cwd=ROOT).stdout
    assert "EXIT 0" in out and "HEAVY []" in out


# ---- issue 36 item 5: the schema takes what `check` takes (model: presets, plan --emit yaml) --------------------

PLANS = [("--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--buffer", "768"),
         ("--product", "A2", "--model", "qwen3-235b-a22b", "--ep", "16", "--buffer", "1024"),
         ("--kind", "deepep", "--mode", "normal", "--model", "deepseek-v3", "--ep", "16"),
         ("--kind", "deepep", "--mode", "low_latency", "--model", "deepseek-v3", "--ep", "16", "--tokens", "128")]


@pytest.mark.parametrize("args", PLANS, ids=lambda a: " ".join(a[:4]))
def test_plan_emit_yaml_validates_and_checks(run, tmp_path, args):
    res = run("plan", *args, "--emit", "yaml")
    assert res.exit_code == 0, res.stderr
    doc = yaml.safe_load(res.stdout)
    assert "model" in doc  # the plan writes a preset, not the fields it fills
    assert [e.message for e in VALIDATOR.iter_errors(doc)] == []
    (tmp_path / "plan.yaml").write_text(res.stdout)
    checked = run("check", "--format", "json", str(tmp_path / "plan.yaml"))
    assert not [d for r in json.loads(checked.stdout)["results"] for d in r["diagnostics"] if d["severity"] == "error"]


@pytest.mark.parametrize("doc, valid", [
    ({"product": "A3", "bs": 8, "ep_world_size": 16, "model": "deepseek-v3"}, True),
    ({"product": "A3", "bs": 8, "ep_world_size": 16, "model": "DeepSeek_V3", "redundant_experts": 16}, True),
    ({"product": "A3", "bs": 8, "ep_world_size": 16, "model": "deepseek-v3", "redundant_experts": -1}, False),
    ({"product": "A3", "bs": 8, "ep_world_size": 16, "h": 7168}, False),  # neither a model nor h, k, moe_expert_num
    ({"product": "A3", "bs": 8, "ep_world_size": 16, "model": "deepseek-v3", "modell": 1}, False),
    ({"kind": "deepep", "mode": "normal", "num_ranks": 16, "model": "deepseek-v3"}, True),
    ({"kind": "deepep", "mode": "normal", "num_ranks": 16}, False),
])
def test_the_schema_agrees_with_check_on_model_documents(run, tmp_path, doc, valid):
    assert VALIDATOR.is_valid(doc) == valid
    (tmp_path / "d.yaml").write_text(yaml.safe_dump(doc))
    res = run("check", "--format", "json", str(tmp_path / "d.yaml"))
    input_errors = [d for r in json.loads(res.stdout)["results"] for d in r["diagnostics"]
                    if d["code"] in ("MC003", "MC004", "MC005", "MC006")]
    assert (input_errors == []) == valid, input_errors


def test_the_documented_vscode_glob_takes_only_moecfg_documents():
    # issue 36 item 5: `deploy/**/*.yaml` also took the manifests and compose files there (launches, not documents)
    import re

    import pathspec  # `**/` as VS Code's globs read it: any folder depth, the top folder included

    page = (ROOT / "docs" / "editors.md").read_text()
    (glob,) = re.findall(r'"yaml\.schemas": \{"\./moecfg\.schema\.json": "([^"]+)"\}', page)
    spec = pathspec.GitIgnoreSpec.from_lines([glob])
    launches = [p.relative_to(ROOT).as_posix() for p in (ROOT / "examples" / "launch").iterdir()]
    assert launches and not [p for p in launches if spec.match_file(p)]
    assert spec.match_file("deploy/a3/dsv3.moe.yaml") and spec.match_file("x.moe.yaml")
    assert not spec.match_file("deploy/k8s/decode.yaml")
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]["files"]
    assert re.search(hook, "deploy/a3/dsv3.moe.yaml") and re.search(hook, "x.moe.yaml")  # the hook takes them too
