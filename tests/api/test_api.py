"""The Python API as a user calls it: same engine as the CLI, pydantic models, nesting, light import."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import moecfg
from moecfg.cli import cli
from moecfg.models import AscendDispatchCombineV2, DeepEPBuffer, Report, Requirement, TutelMoE

ROOT = Path(__file__).resolve().parents[2]
# contract §1.1 example: DeepSeek-V3 on A3, EP 32, bs 128 -> the EP window needs 956 MB (contract §3):
# 2 * (128 * 14848 * 32 * 8 + 128 * 14336 * (8 + 0)) = 2 * (486539264 + 14680064) = 1002438656 B = ceil(/2^20) 956 MB
DSV3 = {"product": "A3", "cann_version": "9.0.1", "bs": 128, "h": 7168, "k": 8, "ep_world_size": 32,
        "moe_expert_num": 256, "quant_mode": 2, "env": {"HCCL_BUFFSIZE": 1024}}


def test_import_is_light():
    code = "import sys, moecfg; print('pydantic' in sys.modules, 'rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout
    assert out.split() == ["False", "False"]


def test_check_dict_valid_with_buffer():
    report = moecfg.check(DSV3)
    assert isinstance(report, Report) and report.valid
    ep = report.results[0].buffers["ep"]
    assert (ep["required_bytes"], ep["required_mb"], ep["sufficient"]) == (1002438656, 956, True)


def test_check_dict_invalid_names_code_and_fix():
    report = moecfg.check({**DSV3, "env": {"HCCL_BUFFSIZE": 900}})
    assert not report.valid
    [d] = [d for d in report.diagnostics if d.severity == "error"]
    assert d.code == "MC501" and "set HCCL_BUFFSIZE >= 956" in d.message and d.path == "/env/HCCL_BUFFSIZE"


def test_check_yaml_text_and_path_agree(tmp_path):
    text = yaml.safe_dump(DSV3, sort_keys=False)
    f = tmp_path / "a.yaml"
    f.write_text(text)
    by_text = moecfg.check(text, name=str(f)).model_dump()["results"]
    by_path = moecfg.check(str(f)).model_dump()["results"]
    assert by_text == by_path


def test_check_model_instance():
    m = AscendDispatchCombineV2(**{**DSV3, "bs": 600})
    codes = [d.code for d in moecfg.check(m).diagnostics]
    assert "MC103" in codes  # A3 bs in [1, 512]


def test_required_buffers():
    req = moecfg.required_buffers(DSV3)
    assert isinstance(req["ep"], Requirement)
    assert (req["ep"].required_bytes, req["ep"].required_mb) == (1002438656, 956)
    assert req["ep"].terms["tok_dispatch"] == 14848  # Align512(Align32(2 * 7168) + 44) = Align512(14380) = 14848


def test_catalog_is_validated_pydantic_data():
    a3 = moecfg.catalog("A3", "9.0")
    assert isinstance(a3, BaseModel) and a3.bs_max == 512
    with pytest.raises(ValidationError):
        type(a3).model_validate({**a3.model_dump(), "bs_max": "512"})  # strict: a string is not an int
    with pytest.raises(ValueError, match="A2 or A3"):
        moecfg.catalog("A4")


def test_strict_rules_raise_validation_error_with_codes_and_loc():
    class ServingConfig(BaseModel):  # a framework's own config nesting a moecfg model
        name: str
        moe: AscendDispatchCombineV2

    bad = {"name": "decode", "moe": {**DSV3, "bs": 600, "env": {"HCCL_BUFFSIZE": 100}}}
    ServingConfig.model_validate(bad)  # without the context only the types are checked
    with pytest.raises(ValidationError) as info:
        ServingConfig.model_validate(bad, context={"strict_rules": True})
    errors = {e["type"]: e for e in info.value.errors()}
    assert errors["MC103"]["loc"] == ("moe", "bs") and errors["MC103"]["input"] == 600
    assert errors["MC501"]["loc"] == ("moe", "env", "HCCL_BUFFSIZE")
    assert "set HCCL_BUFFSIZE >=" in errors["MC501"]["msg"]


def test_models_are_strict_and_forbid_unknown_keys():
    with pytest.raises(ValidationError):
        AscendDispatchCombineV2(**{**DSV3, "bs": "128"})
    with pytest.raises(ValidationError):
        AscendDispatchCombineV2(**{**DSV3, "bss": 1})
    assert DeepEPBuffer.model_fields["kind"].is_required()  # `kind:` may be omitted only for ascend
    assert "capacity_factor" in TutelMoE.model_fields and "num_rdma_bytes" in DeepEPBuffer.model_fields


# Differential test: the API and `moecfg check --format json` give identical results on random documents.
KEYS = ["product", "bs", "h", "k", "ep_world_size", "moe_expert_num", "comm_alg", "quant_mode", "global_bs",
        "cann_version", "shared_expert_rank_num"]
VALUES = st.one_of(st.sampled_from(["A2", "A3", "fullmesh_v2", "hierarchy", "9.0.1", "latest"]),
                   st.sampled_from([0, 1, 2, 8, 16, 24, 32, 64, 128, 256, 512, 513, 4096, 7168]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1))
def test_api_equals_cli_json(tmp_path, doc):
    f = tmp_path / "d.yaml"
    f.write_text(yaml.safe_dump(doc, sort_keys=False))
    cfg = tmp_path / "empty.moecfg.yaml"
    cfg.write_text("{}\n")
    out = CliRunner().invoke(cli, ["check", "--format", "json", "--config", str(cfg), str(f)])
    from_cli = json.loads(out.output)["results"]
    from_api = moecfg.check(doc, name=str(f)).model_dump()["results"]
    assert from_api == from_cli


# The example (issue 10): DeepSeek-R1 on A3, DP 4 x TP 4, --max-num-seqs 16, MTP 3. vllm-ascend 0.13.0 passes
# bs = min(16 x (1 + 3), 512) = 64 capture size, ceil(64 / TP 4) = 16 tokens per rank (ascend_forward_context.py).
ARGV = ["vllm", "serve", "vllm-ascend/DeepSeek-R1-W8A8", "--quantization", "ascend", "--data-parallel-size", "4",
        "--tensor-parallel-size", "4", "--enable-expert-parallel", "--max-num-seqs", "16",
        "--speculative-config", '{"num_speculative_tokens": 3, "method": "deepseek_mtp"}']


def test_check_launch_argv():
    report = moecfg.check_launch(ARGV, env={"HCCL_BUFFSIZE": "1024"}, product="A3", cann="9.0.1",
                                 framework_versions={"vllm-ascend": "0.13.0"})
    [decode] = [r for r in report.results if r.op == "dispatch_combine_v2"]
    assert decode.arguments["bs"] == 16 and decode.arguments["ep_world_size"] == 16
    assert decode.launch.framework == "vllm-ascend" and decode.launch.framework_version == "0.13.0"
    assert "16" in decode.derivation["bs"] and decode.valid


def test_check_launch_command_string_positions():
    command = "export HCCL_BUFFSIZE=100\n" + " ".join(a if " " not in a else f"'{a}'" for a in ARGV) + "\n"
    report = moecfg.check_launch(command, product="A3", cann="9.0.1", framework_versions={"vllm-ascend": "0.13.0"})
    [d] = [d for d in report.diagnostics if d.code == "MC501"]  # 100 MB < 120 MB the EP window needs at bs 16
    assert (d.line, d.column) == (1, 8)  # at `HCCL_BUFFSIZE=100` of the export line


def test_model_without_env_dumps_without_serializer_warning():
    # issue 18: the `env` default was a plain dict where the field's type is a model -> pydantic warned on
    # model_dump(), breaking a user's suite run with -W error (alone and nested in a launcher's config)
    import warnings

    class Launcher(BaseModel):
        op: AscendDispatchCombineV2

    data = {k: v for k, v in DSV3.items() if k != "env"} | {"bs": 8}  # 60 MB window: fits HCCL's default 200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone = AscendDispatchCombineV2.model_validate(data)
        nested = Launcher.model_validate({"op": data}, context={"strict_rules": True})
        dumped = [alone.model_dump(), nested.model_dump()["op"], alone.model_dump_json()]
    assert dumped[0]["env"]["HCCL_BUFFSIZE"] is None and dumped[1]["env"] == dumped[0]["env"]
    assert '"HCCL_BUFFSIZE":null' in dumped[2]
