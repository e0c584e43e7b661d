"""checking/launch.py and sources/documents/classify.py: an OpCall is judged by its kind's own rules and every finding points at the
flag that fed the failing argument; foreign YAML is skipped, moecfg documents keep working unchanged."""
from moecfg.backends import Options
from moecfg.checking.engine import check_text, lint_text
from moecfg.checking.launch import _judge, context
from moecfg.frameworks import OpCall, image_version
from moecfg.sources.textmap import Span

FLAG_BS = Span(3, 5, 3, 22)  # where `--max-num-seqs 16` would sit in a script
ENV_BUF = Span(1, 8, 1, 25)  # `export HCCL_BUFFSIZE=200`
START = Span(3, 1, 3, 11)

# DeepSeek-V3 decode on A3, EP 16, bs 16 per rank: the contract's A3 formula needs more than 200 MB at bs 128,
# so with bs 128 and HCCL_BUFFSIZE 200 MC501 fires; the finding must sit on the env entry.
ARGS = dict(product="A3", cann_version="9.0.1", bs=128, h=7168, k=8, ep_world_size=16, moe_expert_num=256,
            env={"HCCL_BUFFSIZE": "200"})


def call(**changes):
    args = dict(ARGS, **changes)
    return OpCall(role="decode", kind="ascend", op="dispatch_combine_v2", arguments=args,
                  derivation={"bs": "128 <- --max-num-seqs 128"},
                  sources={"bs": (FLAG_BS,), "env.HCCL_BUFFSIZE": (ENV_BUF,)})


def test_buffer_finding_points_at_the_env_entry():
    r = _judge(call(), 0, "launch.sh", START, Options())
    d = [d for d in r.diagnostics if d.code == "MC501"][0]
    assert (d.line, d.column, d.end_line, d.end_column) == (1, 8, 1, 25)
    assert r.arguments["bs"] == 128 and r.derivation == {"bs": "128 <- --max-num-seqs 128"}
    assert r.to_dict()["arguments"]["env"] == {"HCCL_BUFFSIZE": "200"}


def test_argument_finding_points_at_the_flag():
    r = _judge(call(bs=513), 0, "launch.sh", START, Options())  # A3 dispatch v2: bs in [1, 512]
    d = [d for d in r.diagnostics if d.path == "/bs"][0]
    assert (d.line, d.column) == (3, 5)


def test_finding_without_a_source_points_at_the_command():
    r = _judge(call(k=17), 0, "launch.sh", START, Options())  # k > 16 on A3: no source recorded for k
    d = [d for d in r.diagnostics if d.path == "/k"][0]
    assert (d.line, d.column) == (3, 1)


def test_no_ep_collective_is_an_info_result():
    c = OpCall(role="serve", kind="none", op=None, arguments={"ep_world_size": 8},
               why_none="A2, EP 8 < 16: vllm-ascend uses all-gather, no MC2 op")
    r = _judge(c, 0, "launch.sh", START, Options())
    assert r.op == "none" and r.kind is None and r.valid
    assert [(d.code, d.severity, d.message) for d in r.diagnostics] == [
        ("MC041", "info", "A2, EP 8 < 16: vllm-ascend uses all-gather, no MC2 op")]


def test_json_of_plain_documents_has_no_launch_keys():
    r = lint_text("product: A3\nbs: 8\nh: 7168\nk: 8\nep_world_size: 16\nmoe_expert_num: 256\n", "a.yaml")[0]
    assert "launch" not in r.to_dict() and "arguments" not in r.to_dict()


def test_foreign_yaml_is_skipped_not_an_error():
    workflow = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    checked = check_text(workflow, "ci.yaml")
    assert checked.results == [] and [(s.file, s.document) for s in checked.skipped] == [("ci.yaml", 0)]


def test_typo_of_a_moecfg_key_is_still_reported():
    r = lint_text("produkt: A3\nbss: 8\n", "a.yaml")
    assert "MC003" in [d.code for d in r[0].diagnostics]


def test_unknown_kind_is_still_reported():
    r = lint_text("kind: ascnd\nbs: 8\n", "a.yaml")
    assert [d.code for d in r[0].diagnostics][0] == "MC006"


def test_shell_by_suffix_and_shebang():
    from moecfg.sources.readers import looks_like_shell

    assert looks_like_shell("run.sh", "") and looks_like_shell("run", "#!/usr/bin/env bash\nvllm serve x\n")
    assert looks_like_shell("start", "#!/bin/sh\n") and not looks_like_shell("a.yaml", "bs: 1\n")


def test_image_tag_versions():
    assert image_version("quay.io/ascend/vllm-ascend:v0.13.0") == "0.13.0"
    assert image_version("quay.io/ascend/vllm-ascend:v0.11.0rc1-a3") == "0.11.0rc1"
    assert image_version("lmsysorg/sglang:latest") is None and image_version(None) is None


def test_settings_framework_versions_and_models(tmp_path):
    from moecfg.checking.settings import ConfigError, parse

    cfg = parse({"framework-versions": {"vllm-ascend": "v0.13.0"}, "models": {"/models/dsr1": "deepseek-r1"}}, None)
    assert cfg.framework_versions == {"vllm-ascend": "0.13.0"} and cfg.models == {"/models/dsr1": "deepseek-r1"}
    for bad, message in (({"framework_versions": {"vllm-ascnd": "0.13.0"}}, "did you mean"),
                         ({"framework_versions": {"sglang": "new"}}, "not a version"),
                         ({"models": {"x": 3}}, "preset name or a config.json path")):
        try:
            parse(bad, None)
        except ConfigError as exc:
            assert message in str(exc)
        else:
            raise AssertionError(bad)


def test_context_takes_command_line_then_settings():
    from moecfg.checking.settings import Cli, Config, FilePolicy

    policy = FilePolicy(Config(product="A2", cann_version="9.0.1", models={"*": "deepseek-v3"},
                               framework_versions={"sglang": "0.5.4"}), Cli())
    ctx = context(policy, Options(product="A3"))
    assert (ctx.product, ctx.product_source, ctx.cann) == ("A3", "--product", "9.0.1")
    assert ctx.version_for("sglang") == "0.5.4" and dict(ctx.models) == {"*": "deepseek-v3"}
    assert context(policy, Options()).product == "A2"


def test_explain_launch_prints_arguments_derivations_and_memory(tmp_path):
    from pathlib import Path

    from click.testing import CliRunner

    from moecfg.cli import cli

    root = Path(__file__).resolve().parents[2]
    out = CliRunner().invoke(cli, ["explain-launch", str(root / "examples/launch/vllm-ascend-dsr1-a3-dp4tp4.sh")])
    assert out.exit_code == 0
    # DP 4 x TP 4 = EP 16; min(16 x (1 + 3), 512) = 64 capture size, / TP 4 = 16 tokens per rank (vllm-ascend 0.13.0)
    assert "  ep_world_size = 16 <- DP 4 x TP 4" in out.output and "  bs = 16 <- " in out.output
    assert "buffer ep: required 119.5 MiB (125304832 B) per rank" in out.output  # issue 14: MiB, bytes
    gpu = CliRunner().invoke(cli, ["explain-launch", str(root / "examples/launch/k8s-vllm-gpu-deepep-decode.yaml")])
    assert "memory per rank on H200" in gpu.output and "headroom" in gpu.output


def test_launch_finding_covers_the_op_findings_it_explains():
    # MegaMoE sized for 48 tokens per rank, a prefill call of 4096: the op reports MC864 (num_max_tokens_per_rank < bs)
    # and MC872 (max_recv below the worst case); the launch rule MC952 says the same in flag terms and covers them.
    from moecfg.frameworks import Note

    args = dict(product="A3", cann_version="9.1.0", op="mega_moe", bs=4096, h=3072, k=8, ep_world_size=16,
                moe_expert_num=256, intermediate_hidden=1536, num_max_tokens_per_rank=48, max_recv_token_num=6144,
                weight_dtype="int8", dispatch_quant_mode=2, dispatch_quant_out_dtype="int8",
                env={"HCCL_BUFFSIZE": "1024"})
    plain = _judge(OpCall("prefill", "ascend", "mega_moe", args), 0, "l.sh", START, Options())
    assert {"MC864", "MC872"} <= {d.code for d in plain.diagnostics}
    note = Note("MC952", "MegaMoE num_max_tokens_per_rank 48 < 4096", FLAG_BS, covers=("MC864", "MC872"))
    covered = _judge(OpCall("prefill", "ascend", "mega_moe", args, notes=[note]), 0, "l.sh", START, Options())
    codes = [d.code for d in covered.diagnostics]
    assert "MC952" in codes and "MC864" not in codes and "MC872" not in codes


def test_a_launch_without_an_op_call_carries_launch_in_json_and_api(tmp_path):
    # `$DISTRIBUTED_ARGS` unset: Megatron's arguments are not known (MC023), no op call is derived
    f = tmp_path / "train.sh"
    f.write_text("torchrun ${DISTRIBUTED_ARGS} pretrain_gpt.py \\\n    --load $CHECKPOINT_PATH\n")
    (r,) = check_text(f.read_text(), str(f)).results
    d = r.to_dict()
    assert [x.code for x in r.diagnostics] == ["MC023"] and "arguments" not in d and "derivation" not in d
    assert (d["launch"]["framework"], d["launch"]["line"], d["launch"]["index"]) == ("megatron", 1, 0)
    import moecfg
    (dumped,) = moecfg.check(str(f)).model_dump()["results"]
    assert dumped == d  # the API's model gives the same object as the JSON report


def test_launch_index_counts_the_files_launches_and_its_op_calls_share_it():
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from moecfg.cli import cli
    root = Path(__file__).resolve().parents[2] / "examples" / "launch"
    out = CliRunner().invoke(cli, ["check", "--format", "json", str(root / "vllm-ascend-dsr1-a3-dp4tp4.sh")])
    pair = [r["launch"] for r in json.loads(out.output)["results"]]
    assert len(pair) == 2 and {x["index"] for x in pair} == {0}  # one launch, two op calls (prefill/decode kinds)
    two = check_text("---\n" + "---\n".join(
        f"kind: Job\napiVersion: batch/v1\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n"
        f"        command: [torchrun, pretrain_gpt.py, --load, $(X{i})]\n" for i in range(2)), "two.yaml").results
    assert [(r.document, r.launch["index"]) for r in two] == [(0, 0), (1, 1)]  # counted on across documents
