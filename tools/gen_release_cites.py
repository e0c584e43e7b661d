"""Per-release citation tables: moecfg/frameworks/xllm/cites.json and moecfg/frameworks/lmdeploy/cites.json.

A derivation message cites the code of the release it derives for (issue 32). For each release the framework folder
knows (xLLM: flags.json's commits, every tag and main; LMDeploy: flags.json's `sources`, the tags in the mirror),
each anchor below (a function, a check's text, a distinctive line: never a line number) is looked up in that
release's source in the local mirror, and its `path:lines` at that commit recorded. An anchor absent at a release
(the code arrived later) is recorded as null: the derivation for that release must not claim it.

Each anchor: a path (where it lives at main; at an older tag the file of the same name elsewhere in the tree that
holds the text is taken) and parts, each one line (`[text]`) or a range (`[first text, last text]`: the first line
holding the last text at or after the first one). Parts are found from the top of the file, in order.

Reads the mirrors (git directories without a work tree; nothing is downloaded):
    pip download --no-deps lmdeploy==0.17.0 lmdeploy==0.18.0 -d /tmp/wheels    # the releases without a tag
    python tools/gen_release_cites.py [--mirrors /work/.mirror] --wheels /tmp/wheels    # writes both tables
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FUSED = "xllm/core/layers/npu_torch/fused_moe.cpp"
MAPPING = "xllm/core/framework/parallel_state/mapping_npu.cpp"
COMM = "xllm/core/framework/parallel_state/collective_communicator.cpp"
KERNEL = "xllm/core/framework/config/kernel_config.cpp"
GRAPH = "xllm/core/runtime/acl_graph_executor_impl.cpp"
DISPATCH = "xllm/core/kernels/npu/npu_moe_distribute_dispatch_v2.cpp"

XLLM = {
    # gflags parses the command line (an unknown flag stops start-up)
    "parse_flags": ("xllm/xllm.cpp", [["google::ParseCommandLineFlags("]]),
    # the size flags xLLM CHECKs >= 1 or divides by at start-up
    "sizes": ("xllm/core/distributed_runtime/dist_manager.cpp",
              [["CHECK_GE(options.nnodes(), 1)"], ["(world_size % dp_size)"]]),
    "fused_mc2_range": (KERNEL, [["CHECK_GE(mode, -1)", "CHECK_LE(mode, 2)"]]),
    "fused_mc2_auto": (KERNEL, [["expert_parallel_degree() == 2", "return 1;"]]),
    "backend_values": ("xllm/models/model_registry.cpp",
                       [["backend != kAutoBackend && backend != kAtbBackend", "Supported values: AUTO, ATB, TORCH."]]),
    # v0.8.0 (the flag, no AUTO): the communicator compares it with TORCH and ATB only
    "backend_compare": (COMM, [['FLAGS_npu_kernel_backend == "TORCH"'], ['FLAGS_npu_kernel_backend == "ATB"']]),
    "rank_table": ("xllm/core/distributed_runtime/master.cpp",
                   [["void validate_rank_tablefile_backend()", "<< parallel_config.communication_backend();"]]),
    # the buffer MappingNPU gives every ATB group: HCCL_BUFFSIZE or 512 (v0.10.0 on) / a fixed 512 (before)
    "buffer_env": (MAPPING, [["int32_t unified_buffer", "moe_ep_.buffer_size(unified_buffer);"]]),
    "buffer_default": (MAPPING, [["#define ENV_hccl_moe_ep_buffer"],
                                ["int32_t get_hccl_buffer_size_or_default(", "return static_cast<int32_t>(parsed_value);"]]),
    "buffer_fixed": (MAPPING, [["#define ENV_hccl_moe_ep_buffer"], ["moe_ep_.buffer_size(ENV_hccl_moe_ep_buffer)"]]),
    # the ATB DeepSeek layer: EP level 2 -> MC2 all-to-all inside xllm_atb_layers
    "atb_mc2": (("xllm/core/layers/npu/npu_deepseek_v2_decoder_layer_impl.cpp",
                 "xllm/core/layers/npu/deepseek_v2_decoder_layer.cpp"),
                [["if (ep_size_ > 1) {", "param.expertParallelDegree = 0;"],
                 ["param.enableAllToAllMC2 = (param.expertParallelDegree == 2);"]]),
    # xLLM's docs: EP level 2 only when ep_size is the number of devices
    "ep_level_docs": ("docs/en/features/moe_params.md", [["When ep_size equals the total number of devices, can be set"]]),
    # the TORCH FusedMoE (v0.10.0 on)
    "ep2_deepseek_v4": (FUSED, [["enable_ep2_dispatch_combine_ =", "ep_size > 1;"]]),
    "fused_select": (FUSED, [["const int32_t mode = fused_mc2_mode();", "has_moe_distribute_dispatch_combine_v2();"]]),
    "decode_dispatch": (FUSED, [["if (!all_dp_ranks_are_decode(input_params)) {",
                                 "has_moe_distribute_dispatch_combine_v2();"]]),
    "prefill_allgather": (FUSED, [["if (!all_dp_ranks_are_decode(input_params)) {", "return false;"]]),
    "moe_expert_num": (FUSED, [["num_total_experts_(model_args.n_routed_experts())"],
                               ["dispatch_params.moe_expert_num = num_total_experts_;"]]),
    "ep_world_size": (FUSED, [["const auto ep_world_size = parallel_args_.moe_ep_group_->world_size();"],
                              ["dispatch_params.ep_world_size = ep_world_size;"]]),
    "dispatch_fixed": (FUSED, [["dispatch_params.tp_world_size = 0;", "dispatch_params.expert_token_nums_type = 1;"]]),
    "expert_scales": (FUSED, [["dispatch_params.expert_scales = weights_2d;"]]),
    "global_bs": (FUSED, [["int64_t global_bs = input_2d.size(0) * ep_world_size;"]]),
    "global_bs_dp": (FUSED, [["int64_t global_bs = input_2d.size(0) * ep_world_size;", "global_bs = 0;"]]),
    "dispatch_api": (DISPATCH, [["EXEC_NPU_CMD(aclnnMoeDistributeDispatchV2,", "expand_scales);"]]),
    "quant_mode_check": (DISPATCH, [["CHECK_EQ(quant_mode, kNoQuantMode)", "non-quantized communication mode"]]),
    # the dispatch/combine domain: buffer 0 when moe_ep is the world; built only for TORCH + EP level 2 + ep == world
    "domain_buffer": (COMM, [["const bool moe_ep_is_world", "reuse_comm_domain);"]]),
    "ep2_domain": (COMM, [["<npu_kernel_backend() == \"TORCH\" &&", "dispatchAndCombineHcclComm("]]),
    # ACL graphs: the decode batch limit and the bucket a batch is padded to
    "graph_limit": (GRAPH, [["const uint32_t n_tokens = tokens_tensor.size(", "get_bucket_num_tokens(graph_num_tokens)"]]),
    "graph_bucket": (GRAPH, [["AclGraphExecutorImpl::get_bucket_num_tokens(", "return ((num_tokens + 15) / 16) * 16;"]]),
}

CONFIG = "lmdeploy/pytorch/config.py"
OPB = "lmdeploy/pytorch/backends/dlinfer/ascend/op_backend.py"
LAUNCH = "lmdeploy/serve/openai/launch_server.py"
LMDEPLOY = {
    # DistConfig.__post_init__: the world from --tp / --dp / --ep and its asserts
    "dist_config": (CONFIG, [["^class DistConfig"],
                             ["def __post_init__(self):", "(f'world_size {world_size}, attn_tp {self.attn_tp}')"]]),
    "dp_rank_assert": (CONFIG, [["^class DistConfig"], ["assert self.dp_rank < self.dp"]]),
    # launch_server (the CLI's path when --dp > 1)
    "dp_needs_tp_or_ep": (LAUNCH, [["only support tp > 1 or ep > 1"]]),
    "dp_per_node": (LAUNCH, [["dp_per_node = dp // num_nodes", "dp_rank = node_rank * dp_per_node + idx"]]),
    # PytorchEngineConfig.__post_init__: tp, dp, ep >= 1, 0 < cache_max_entry_count < 1, max_prefill_token_num >= 0
    "engine_asserts": ("lmdeploy/messages.py", [["^class PytorchEngineConfig"],
                                                ["assert self.tp >= 1", "'invalid max_prefill_token_num'"]]),
    "cache_fraction": ("lmdeploy/messages.py", [["^class PytorchEngineConfig"],
                                                ["0 < self.cache_max_entry_count < 1", "'invalid cache_max_entry_count'"]]),
    # the EP group: created without pg_options (the op's window is the process HCCL_BUFFSIZE)
    "ep_group": ("lmdeploy/pytorch/distributed.py", [["^def _build_ep_group"], ["dist.new_group(ranks=ep_ranks"]]),
    "ep_expert_list": ("lmdeploy/pytorch/backends/dlinfer/moe.py",
                       [["def ep_expert_list(", "return list(range(first_expert, last_expert))"]]),
    # dlinfer's Ascend op backend: the MC2 token capacity and the op each step runs
    "mc2_capacity": (OPB, [["def init_mc2_token_capacity", "return num_tokens_per_tp_rank * tp_size"]]),
    "moe_comm_type": (OPB, [["def select_moe_comm_type", "raise ValueError(f'Unsupported soc_version"]]),
    # the step's padding: ceil(max tokens across DP / tp) x tp, the rank's real tokens masked
    "pad_info": (OPB, [["def get_pad_info(", "return pad_size, x_active_mask"]]),
}

FRAMEWORKS = {
    "xllm": ("jd-opensource/xllm", XLLM),
    "lmdeploy": ("InternLM/lmdeploy", LMDEPLOY),
}


def git(repo: Path, *args: str) -> str | None:
    done = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def releases(framework: str, repo: Path) -> dict[str, str]:
    """release key -> full commit, or `wheel <file name>` for a release read from its PyPI wheel (LMDeploy 0.17.0 /
    0.18.0: no tag in the mirror), in the framework folder's order."""
    data = json.loads((ROOT / "moecfg/frameworks" / framework / "flags.json").read_text(encoding="utf-8"))
    if framework == "xllm":
        return {key: rel["commit"] for key, rel in data["releases"].items()}
    out = {}
    for key, source in data["sources"].items():
        ref = source.split()[0]
        if "@" in ref:
            full = git(repo, "rev-parse", "--verify", "--quiet", ref.split("@")[1] + "^{commit}")
            out[key] = full.strip() if full else None
        elif source.startswith("PyPI wheel "):
            out[key] = "wheel " + source.split()[2]
    return out


class Wheel:
    """A release's PyPI wheel read like a commit: its file list and each file's text."""

    def __init__(self, path: Path):
        import zipfile

        self.zip = zipfile.ZipFile(path)
        self.tree = [n for n in self.zip.namelist() if not n.endswith("/")]

    def show(self, name: str) -> str | None:
        return self.zip.read(name).decode("utf-8") if name in self.tree else None


def _find(lines: list[str], text: str, start: int = 0) -> int | None:
    return next((i for i in range(start, len(lines)) if text in lines[i]), None)


def locate(lines: list[str], parts: list[list[str]]) -> str | None:
    """`a-b,c` for the parts in `lines`, each found at or after the one before it, or None when one is missing. A
    part `["^text"]` only moves the search there (the class a method belongs to) and is not cited; a range
    `["<first text", "last text"]` starts at the nearest line holding the first text above the last one (a condition
    whose first words also open other blocks before it)."""
    out, at = [], 0
    for part in parts:
        if part[0].startswith("<"):
            last = _find(lines, part[1], at)
            first = next((i for i in range(last, at - 1, -1) if part[0][1:] in lines[i]), None) if last is not None \
                else None
            if first is None:
                return None
            out.append(f"{first + 1}-{last + 1}")
            at = first
            continue
        first = _find(lines, part[0].lstrip("^"), at)
        if first is None:
            return None
        at = first
        if part[0].startswith("^"):
            continue
        last = first if len(part) == 1 else _find(lines, part[1], first)
        if last is None:
            return None
        out.append(f"{first + 1}" if last == first else f"{first + 1}-{last + 1}")
    return ",".join(out)


def anchor(show, tree: list[str], paths: str | tuple, parts: list[list[str]]) -> str | None:
    """`path:lines` of the anchor at `commit`: the file at one of `paths` (the name it has at main first, then older
    names), else a file of one of those names elsewhere in the tree that holds it."""
    paths = (paths,) if isinstance(paths, str) else paths
    names = {p.rsplit("/", 1)[-1] for p in paths}
    candidates = [p for p in paths if p in tree]
    candidates += [p for p in tree if p not in paths and p.rsplit("/", 1)[-1] in names]
    for candidate in candidates:
        text = show(candidate)
        where = locate(text.splitlines(), parts) if text is not None else None
        if where is not None:
            return f"{candidate}:{where}"
    return None


def table(framework: str, mirrors: Path, wheels: Path) -> dict:
    name, anchors = FRAMEWORKS[framework]
    repo = mirrors / name.replace("/", "+") / "repo"
    out = {"framework": framework, "repo": name,
           "generated_by": "tools/gen_release_cites.py: each anchor found in the release's tagged source (or its PyPI "
                           "wheel where the mirror has no tag)",
           "releases": {}}
    for key, commit in releases(framework, repo).items():
        if commit is None:
            raise SystemExit(f"{name} {key}: its commit is not in the mirror {repo}")
        if commit.startswith("wheel "):
            wheel = Wheel(wheels / commit.split()[1])
            show, tree, row = wheel.show, wheel.tree, {"wheel": commit.split()[1]}
        else:
            tree = (git(repo, "ls-tree", "-r", "--name-only", commit) or "").splitlines()
            show, row = (lambda path, c=commit: git(repo, "show", f"{c}:{path}")), {"commit": commit}
        row["cites"] = {a: anchor(show, tree, path, parts) for a, (path, parts) in anchors.items()}
        out["releases"][key] = row
    return out


def main(argv: list[str]) -> int:
    mirrors = Path(argv[argv.index("--mirrors") + 1]) if "--mirrors" in argv else Path("/work/.mirror")
    wheels = Path(argv[argv.index("--wheels") + 1]) if "--wheels" in argv else Path(".")
    for framework in FRAMEWORKS:
        data = table(framework, mirrors, wheels)
        target = ROOT / "moecfg/frameworks" / framework / "cites.json"
        target.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        missing = {k: [a for a, v in r["cites"].items() if v is None] for k, r in data["releases"].items()}
        print(f"{target.relative_to(ROOT)}: {len(data['releases'])} releases; absent: {missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
