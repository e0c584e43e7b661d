"""trainers/prime_rl + sources/recipes/prime_rl.py: prime-rl TOML configs (sniffed, then parsed) -> the vLLM argv of
each inference rank (single node, multi node, disaggregated P/D), the trainer's own EP listed as not derived, and
prime-rl's refusals (MC717, MC718, MC748, MC749).

Fixtures: PrimeIntellect-ai/prime-rl@559b44772 examples/advanced/glm-5.2/swe.toml (RL, disaggregated: prefill and decode
replicas of 4 nodes x 8 GPUs, GLM-5-FP8), examples/advanced/glm-5.2/infer/pd.toml (inference: prefill 4 nodes, decode
2), examples/advanced/qwen3-30b-a3b/math.toml (RL multi node, TP 8 without EP), docs/inference.md (```toml blocks).
"""
from __future__ import annotations

import time
from pathlib import Path

from moecfg import frameworks
from moecfg.checking.engine import check_paths, check_text
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell
from moecfg.sources.recipes.prime_rl import positions, read_toml, sniff

HERE = Path(__file__).resolve().parent / "fixtures" / "prime_rl"
CTX = LaunchContext()
EP_RL = """[deployment]
type = "multi_node"
num_train_nodes = 2
num_infer_nodes = 2

[slurm]
job_name = "x"

[model]
name = "Qwen/Qwen3-30B-A3B"

[inference.vllm]
enable_expert_parallel = true
all2all_backend = "deepep_low_latency"
tensor_parallel_size = 8
"""


def _derive(text: str):
    (launch,) = read_toml(text).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "prime-rl"
    return module.derive(launch, CTX)


def _errors(d) -> list[str]:
    return [n.code for n in d.notes if n.code not in ("MC040", "MC023", "MC041")]


def test_the_published_disaggregated_rl_config_sizes_both_roles():
    d = _derive((HERE / "glm5_swe.toml").read_text())
    assert [(c.role, c.kind, c.arguments["mode"], c.arguments["num_ranks"]) for c in d.calls] == [
        ("rollout-prefill", "deepep", "normal", 32), ("rollout-decode", "deepep", "low_latency", 32)]
    assert not _errors(d)
    assert any("trainer.model.ep = 8" in u.reason for u in d.unread)
    said = " ".join(d.calls[0].derivation.values())
    assert "prefill_nodes_per_replica" in said


def test_the_inference_config_decode_replica_spans_two_nodes():
    d = _derive((HERE / "glm5_pd.toml").read_text())
    assert [(c.role, c.arguments["num_ranks"]) for c in d.calls] == [("rollout-prefill", 32), ("rollout-decode", 16)]


def test_multi_node_ep_over_a_replica_and_prime_rls_refusal():
    d = _derive(EP_RL.replace("tensor_parallel_size = 8", "tensor_parallel_size = 8\ndata_parallel_size = 2"))
    (call,) = d.calls
    assert (call.role, call.arguments["mode"], call.arguments["num_ranks"]) == ("rollout", "low_latency", 16)
    d = _derive(EP_RL)  # DP 1 x TP 8 = 8 of the replica's 2 x 8 GPUs
    assert _errors(d) == ["MC718"] and not d.calls
    note = next(n for n in d.notes if n.code == "MC718")
    assert note.span.line == EP_RL.splitlines().index("tensor_parallel_size = 8") + 1
    assert "data_parallel_size = 2" in note.message
    d = _derive(EP_RL.replace("tensor_parallel_size = 8", "tensor_parallel_size = 3\ndata_parallel_size = 2"))
    assert _errors(d) == ["MC718"]  # 8 GPUs per node do not split into TP 3 groups


def test_multi_node_without_ep_runs_independent_engines():
    d = _derive((HERE / "qwen3_30b_math.toml").read_text())
    (call,) = d.calls
    assert call.kind == "none" and "no --enable-expert-parallel" in call.why_none and not _errors(d)


SINGLE = """[deployment]
num_train_gpus = 2
num_infer_gpus = {gpus}

[trainer.model]
name = "Qwen/Qwen3-30B-A3B"

[inference.vllm]
model = "Qwen/Qwen3-30B-A3B"
enable_expert_parallel = true
all2all_backend = "deepep_high_throughput"
tensor_parallel_size = {tp}
"""


def test_single_node_fills_the_inference_gpus_with_dp_ranks():
    (call,) = _derive(SINGLE.format(gpus=6, tp=2)).calls  # DP = 6 / 2 = 3 (rl.py:673)
    assert (call.arguments["mode"], call.arguments["num_ranks"]) == ("normal", 6)
    d = _derive(SINGLE.format(gpus=6, tp=4))
    assert _errors(d) == ["MC748"] and not d.calls
    d = _derive(SINGLE.format(gpus=6, tp=4).replace("num_infer_gpus = 6\n", ""))  # the default 1: no error, unknown
    assert _errors(d) == [] and any(n.code == "MC023" for n in d.notes)


def test_trainer_deepep_backend_needs_ep_above_one():
    d = _derive('[trainer.model]\nep = 1\nep_comm_backend = "deepep"\n[orchestrator]\nbatch_size = 8\n')
    assert _errors(d) == ["MC749"]
    d = _derive('[trainer.model]\nep = 2\nep_comm_backend = "deepep"\n[orchestrator]\nbatch_size = 8\n')
    assert _errors(d) == [] and any("ep_comm_backend deepep" in u.reason for u in d.unread)


def test_broken_toml_in_a_prime_rl_config_is_a_finding_at_its_line():
    out = check_text("[inference.vllm]\ntensor_parallel_size = \n", "rl.toml")
    codes = [(d.code, d.line) for r in out.results for d in r.diagnostics]
    assert ("MC717", 2) in codes


def test_other_toml_is_skipped_unparsed_and_cheaply():
    pyproject = "[project]\nname = 'x'\n[tool.ruff]\nline-length = 120\n" + "[tool.x]\nkey = 'value'\n" * 5000
    assert sniff(pyproject) is None and read_toml(pyproject) is None
    out = check_text(pyproject + "broken = = =\n", "pyproject.toml")
    assert out.results == [] and "not a prime-rl config" in out.skipped[0].reason
    start = time.perf_counter()
    for _ in range(20):
        check_text(pyproject, "pyproject.toml")
    assert time.perf_counter() - start < 1.0  # a regex over the raw text, no tomllib


def test_positions_follow_tables_and_skip_multiline_values():
    text = '[a]\nx = """\n[b]\ny = 1\n"""\nz = [\n  1,\n]\n[c.d]\nw = 2  # note\n[[e]]\nv = 3\n'
    spans, headers = positions(text)
    assert spans[("a", "x")].line == 2 and spans[("a", "z")].line == 6 and spans[("c", "d", "w")].line == 10
    assert ("b", "y") not in spans and ("e", "v") not in spans and headers[("c", "d")].line == 9


def test_markdown_toml_blocks_are_read_with_markdown(tmp_path):
    doc = tmp_path / "inference.md"
    doc.write_text((HERE / "inference.md").read_text())
    report = check_paths([str(doc)])
    launches = [r.launch for r in report.results if r.launch]
    assert [(x["framework"], x["line"]) for x in launches] == [("prime-rl", 7), ("prime-rl", 21)]
    assert not [d for r in report.results for d in r.diagnostics if d.severity == "error"]


def test_shell_launches():
    (launch,) = read_shell("uv run rl @ examples/advanced/glm-5.2/swe.toml --output-dir /tmp/x\n").launches
    d = frameworks.recognise(launch, CTX).derive(launch, CTX)
    assert not d.calls and "examples/advanced/glm-5.2/swe.toml" in d.unread[0].reason
    (launch,) = read_shell("uv run inference --vllm.model Qwen/Qwen3-30B-A3B --vllm.enable-expert-parallel "
                           "--vllm.data-parallel-size 8 --vllm.all2all-backend deepep_low_latency\n").launches
    (call,) = frameworks.recognise(launch, CTX).derive(launch, CTX).calls
    assert (call.arguments["mode"], call.arguments["num_ranks"]) == ("low_latency", 8)


def test_trainer_ep_auto_is_listed_for_a_moe_model_only():
    moe = _derive('[model]\nname = "Qwen/Qwen3-30B-A3B"\n[orchestrator]\nbatch_size = 8\n')
    assert any("ep auto" in u.reason for u in moe.unread)
    dense = _derive('[model]\nname = "my-org/dense-7b"\n[orchestrator]\nbatch_size = 8\n')
    assert dense.unread == []


def test_sniff_tells_the_entry_point_apart():
    assert sniff("[inference.vllm]\ntensor_parallel_size = 2\n") == "rl"  # a documentation fragment
    assert sniff("[model]\nname = 'x'\n[optim]\nlr = 1e-6\n[inference]\n") == "trainer"  # SFT with eval inference
    assert sniff("[vllm]\nmodel = 'x'\n[deployment]\ntype = 'disaggregated'\n") == "inference"
    assert sniff("[model]\nname = 'x'\n[optimizer]\nlr = 1\n[parallelism]\nexpert_parallel_degree = 8\n") is None


INFER = """[deployment]
type = "multi_node"
num_nodes = {nodes}

[vllm]
model = "Qwen/Qwen3-30B-A3B"
enable_expert_parallel = true
all2all_backend = "deepep_low_latency"
tensor_parallel_size = 2
data_parallel_size = 8
"""


def test_an_inference_config_over_nodes_has_a_node_local_ep_group():
    (call,) = _derive(INFER.format(nodes=2)).calls  # 8 GPUs / TP 2 = DP 4 per node (inference.sbatch.j2:332-337)
    assert call.arguments["num_ranks"] == 8
    (call,) = _derive(INFER.format(nodes=1)).calls  # one node: the config as written, DP 8 x TP 2
    assert call.arguments["num_ranks"] == 16


def test_a_role_override_wins_over_the_role_backend():
    text = (HERE / "glm5_pd.toml").read_text() + \
        '\n[deployment.decode_vllm_overrides]\nall2all_backend = "deepep_high_throughput"\n'
    d = _derive(text)
    assert [c.arguments["mode"] for c in d.calls] == ["normal", "normal"]
    assert "decode_vllm_overrides.all2all_backend" in d.calls[1].derivation["mode"]


def test_hostile_nesting_is_bounded():
    text = "[inference.vllm]\n" + "a = " + "{b = " * 200 + "1" + "}" * 200 + "\n"
    lf = read_toml(text)
    assert lf is not None and len(lf.launches) == 1  # read (or refused as TOML), never a RecursionError


def test_a_documentation_fragment_without_a_model_lists_its_disaggregated_roles():
    (launch,) = read_toml('[inference.deployment]\ntype = "disaggregated"\nprefill_nodes_per_replica = 2\n',
                          first_line=131, block=True).launches
    assert launch.argv[2].span.line == 133  # `type = ...`, the block's 2nd line: the file's line 133
    d = frameworks.recognise(launch, CTX).derive(launch, CTX)
    assert not d.calls and [u.reason.split(" engine")[0] for u in d.unread] == ["rollout-prefill", "rollout-decode"]
    assert not [n for n in d.notes if n.code == "MC042"]
