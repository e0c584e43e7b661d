"""Launch files: reading the command as written and deriving the op calls (MC020-MC049).

A launch file is a shell script, a Kubernetes manifest, a compose file or a YAML file holding a launch
command. moecfg reads the command words and environment with positions, recognises the framework
(vllm-ascend, vLLM, SGLang, Megatron), derives the op arguments exactly as that framework version does, and
runs the op's rules on them. These rules report what stops or limits that reading.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, INFO, WARNING
from moecfg.core.registry import rule

_F = "launch"
_LAUNCH_OK = ("# a vllm-ascend decode launch on A3 (settings give product and CANN)\n"
              "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nbs: 16\nh: 7168\nk: 8\nep_world_size: 16\n"
              "moe_expert_num: 256\nenv:\n  HCCL_BUFFSIZE: 1024\n")

# MC042's question about the hardware: asked once per run (checking/ask_once.py), on launches where the answer matters.
PRODUCT_UNKNOWN = "the Ascend product (A2 or A3) is not known"
# MC042's question about the model: asked once per run too (the model names and files listed in the one warning).
MODEL_NOT_KNOWN = "is not a built-in model or Hugging Face id moecfg knows"
MODEL_NOT_STATIC = "the model is not known statically"
# MC042's question about the image (which fused MC2 op vllm-ascend runs): one `cann_version` answers every launch.
FUSED_OP_UNKNOWN = "moecfg cannot see the image's packages"

SHELL_SYNTAX = rule(
    "MC020", "launch-shell-syntax", ERROR, "A shell command that cannot be parsed (unterminated quote, bad syntax)",
    family=_F, why="The shell refuses the script (`unexpected EOF while looking for matching`), or runs a "
    "different command than the one reviewed. Reported only when bash itself refuses the script (`bash -n`; "
    "without bash: only an unterminated quote) and the broken part holds a launch moecfg recognises; placeholders "
    "such as `<host_ip>` are unknown values (MC023), not syntax. The error points at the opening quote or the line "
    "bash names, also inside a `bash -c` string of a manifest; the commands around it are still read.",
    fix="Close the quote or fix the syntax at the reported position.",
    fail_example="# a Kubernetes pod whose bash -c script leaves a single quote open\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: dsr1}\nspec:\n  containers:\n    - name: vllm\n"
    "      image: quay.io/ascend/vllm-ascend:v0.13.0\n      command: [\"bash\", \"-c\"]\n      args:\n"
    "        - |\n          vllm serve /models/dsr1 --additional-config '{\"enable_mc2_hierarchy_comm\": true}\n",
    pass_example=_LAUNCH_OK)
JSON_FLAG = rule(
    "MC021", "launch-json-flag", ERROR, "A JSON-valued flag (--additional-config, --speculative-config, ...) "
    "that is not a JSON object", family=_F,
    why="The framework's argument parser rejects the launch at start-up (json.loads fails).",
    fix="Quote the JSON so the shell passes it as one word, and check it with `python -m json.tool`.",
    fail_text="`vllm serve m --additional-config '{enable_mc2_hierarchy_comm: true}'` (keys not quoted).",
    pass_example=_LAUNCH_OK)
UNKNOWN_FLAG = rule(
    "MC022", "launch-unknown-flag", WARNING, "A flag the framework version does not define (likely a typo)",
    family=_F, why="argparse stops the launch with `unrecognized arguments`.",
    fix="Use the flag's exact name (see the framework's --help for this version).",
    fail_text="`vllm serve m --max-num-seq 16` (vLLM defines --max-num-seqs).", pass_example=_LAUNCH_OK)
VALUE_UNKNOWN = rule(
    "MC023", "launch-value-unknown", INFO, "A value moecfg cannot know statically (unset variable, valueFrom, "
    "template, command substitution): arguments that depend on it are not checked", family=_F,
    why="moecfg never guesses: an argument it cannot derive is left out and its rules are skipped. A variable "
    "is known only where the same script or manifest sets it before the command (in every branch); a "
    "Kubernetes `valueFrom` is only known in the cluster.",
    fix="Set the value literally in the file, or give it in the settings (models:, product, cann_version).",
    fail_example="# the pod IP comes from the cluster (valueFrom): moecfg cannot know it\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: llama}\nspec:\n  containers:\n    - name: vllm\n"
    "      image: vllm/vllm-openai:v0.11.0\n"
    "      command: [\"vllm\", \"serve\", \"meta-llama/Llama-3.1-8B-Instruct\", \"--host\", \"$(POD_IP)\"]\n"
    "      env:\n        - name: POD_IP\n          valueFrom: {fieldRef: {fieldPath: status.podIP}}\n",
    pass_example=_LAUNCH_OK)
VALUE_REFUSED = rule(
    "MC025", "launch-value-refused", ERROR, "A size the framework refuses at start-up: a parallel size, batch or "
    "token count of 0 or below", family=_F,
    why="vLLM, SGLang and Megatron-LM stop the launch when a parallel size is below 1 (no rank to run on) or a "
    "count is negative; moecfg cannot derive the EP size or token count from it either, so the op rules that need "
    "it are skipped.",
    fix="Set the size to the number of ranks you deploy (>= 1), or drop the flag to keep the framework's default.",
    fail_example="# a vLLM pod whose tensor-parallel size is 0\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: dsr1}\nspec:\n  containers:\n    - name: vllm\n"
    "      image: quay.io/ascend/vllm-ascend:v0.13.0\n      command: [\"vllm\", \"serve\", \"/models/DeepSeek-R1-W8A8\", "
    "\"--tensor-parallel-size\", \"0\", \"--enable-expert-parallel\"]\n",
    pass_example=_LAUNCH_OK)
TEMPLATE = rule(
    "MC024", "launch-template", INFO, "A templated file (Helm/Jinja `{{ ... }}`): the text is not what runs",
    family=_F, why="Only the rendered manifest is what the cluster runs; a value written as a template "
    "expression is unknown to moecfg. Said only of a template that holds a launch command written out (`vllm "
    "serve`, `python -m sglang.launch_server`, `pretrain_gpt.py` ...); a template with none (a certificate, RBAC, a "
    "Deployment whose command is all template) is skipped with that reason.",
    fix="Check the rendered output instead: `helm template ... | moecfg check -`.",
    fail_example="# a Helm chart template of a launch: the rendered manifest is what runs\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: dsr1}\nspec:\n  replicas: {{ .Values.replicas }}\n  containers:\n"
    "    - name: vllm\n      command: [vllm, serve, {{ .Values.model }}]\n",
    pass_example=_LAUNCH_OK)
VERSION_ASSUMED = rule(
    "MC040", "framework-version-assumed", INFO, "The framework version is not given (image tag or settings): the "
    "newest supported version's derivation applies (said once per run, at the first launch it covers)", family=_F,
    why="The framework derives the op arguments differently per version (token caps, comm_alg, op choice).",
    fix="Pin it: an image tag such as `vllm-ascend:v0.13.0`, or `framework_versions: {vllm-ascend: 0.13.0}` in "
    ".moecfg.yaml.", fail_text="`vllm serve` in a shell script with no settings file.", pass_example=_LAUNCH_OK)
NO_EP_OP = rule(
    "MC041", "no-ep-collective", INFO, "The launch runs no expert-parallel collective in this phase (e.g. "
    "all-gather instead of MC2): nothing to size", family=_F,
    why="The framework picks the MoE communication by product, EP size and token count. Said only of a model "
    "known to have routed experts: a dense model (Megatron without --num-experts) or one moecfg cannot resolve gets "
    "nothing.",
    fix="Nothing to fix; the message says which path runs and why.",
    fail_text="vllm-ascend on A2 with EP 8 (< 16): all-gather, no MC2 op.", pass_example=_LAUNCH_OK)
UNRESOLVED = rule(
    "MC042", "launch-unresolved", WARNING, "A value the op needs that the launch cannot tell (product, model "
    "dimensions, CANN version): the op's rules that need it are skipped", family=_F,
    why="The verdict depends on the hardware and model, which a command line does not always name. The Ascend "
    "product is asked only of launches where it changes the verdict (expert parallelism on) and once per run: the "
    "first such launch carries the question and names the other files.",
    fix="Add the flag or setting the message names (`--product A3`, `models:` in .moecfg.yaml).",
    fail_text="`vllm serve /models/x ...` where /models/x is not a known model and no `models:` map is set.",
    pass_example=_LAUNCH_OK)
OP_FALLBACK = rule(
    "MC043", "framework-op-fallback", INFO, "The launch asks for an op the framework silently replaces (e.g. "
    "fused MC2 outside MegaMoE's limits): says which op really runs", family=_F,
    why="The framework falls back without an error, so the configuration tested is not the one that runs.",
    fix="Drop the request, or change the setting that makes the framework fall back.",
    fail_text="vllm-ascend `enable_fused_mc2` with a model whose hidden size is outside [1024, 8192] % 512.",
    pass_example=_LAUNCH_OK)
