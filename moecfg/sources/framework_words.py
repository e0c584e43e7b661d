"""What a framework launch looks like as text, for every reader that must decide cheaply whether some text may
hold one (shell syntax repair, YAML strings, templates, Markdown blocks). A new framework adds its words here,
once; its `recognise()` (frameworks/<name>/__init__.py) stays the judge of an actual argv.

Each list is a tuple of regular-expression alternatives; each reader's pattern is compiled on first use.
"""
from __future__ import annotations

import re

# A command that starts a framework, written out (`vllm serve`, `python -m sglang.launch_server`).
COMMANDS = (
    r"\bvllm\s+serve\b",
    r"\bvllm\.entrypoints\b",
    r"\bsglang\.launch_server\b",
    r"\bsglang\s+serve\b",
    r"\bvllm-mindspore\s+serve\b",
    r"\bvllm_mindspore\.entrypoints\b",
    r"\blmdeploy\s+serve\b",
    r"\bxllm[\s\\]+--?[a-z]", r"\$\{?XLLM_\w+\}?[\s\\]+--?[a-z]",  # xLLM's binary, or $XLLM_PATH in its guides
    # the DeepEP serving engines (frameworks/lightllm, fastdeploy, rtp_llm) and TensorRT-LLM's server
    r"\blightllm\.server\.api_server\b", r"\bfastdeploy\.entrypoints\b", r"\brtp_llm\.start_server\b",
    r"\btrtllm-serve\b",
    # trainers (moecfg/trainers/): verl's entry module, ms-swift's `megatron` console script
    r"\bverl\.trainer\.main_\w+", r"\bverl\.experimental\.\w+\.\w*main\w*",
    r"\bmegatron[ \t]+(?:sft|pt|rlhf|export)\b",
)
# `python3 -m <module>` of a serving framework (a YAML string whose first line starts a launch).
PYTHON_MODULES = (r"vllm", r"vllm_mindspore", r"sglang", r"dynamo\.(?:vllm|sglang)", r"lmdeploy", r"verl\.trainer",
                  r"verl\.experimental", r"recipe\.(?:\w+\.){1,4}main_\w+", r"lightllm", r"fastdeploy", r"rtp_llm")
# Megatron-Bridge's launchers (trainers/megatron_bridge; bridge3): read in YAML strings under a command key (its
# model verification cards' `command: >` / `commands:`) and in Markdown blocks
BRIDGE_COMMANDS = (r"\bscripts/conversion/convert\.sh\s+(?:import|export|roundtrip)\b",
                   r"\bscripts/inference/infer\.sh\b", r"\bscripts/training/run_recipe\.py\b",
                   r"\bscripts/performance/(?:setup_experiment|run_script)\.py\b",
                   r"\bexamples/conversion/[\w/]+\.py\b", r"\bscripts/inference/\w+_generation\.py\b",
                   r"\bexamples/models/[\w/]+/hf_to_megatron_generate_\w+\.py\b", r"\bscripts/training/train\.sh\b")
# A training entry script (shell scripts; not YAML strings, where `pretrain_gpt.py` is often prose).
TRAINING_SCRIPTS = (r"\bpretrain_\w+\.py\b", r"\bposttrain_\w+\.py\b")  # Megatron, MindSpeed-LLM
# Words that make a template or a broken YAML file worth reporting: it may hold a launch once rendered.
TEMPLATE_WORDS = (r"vllm", r"sglang", r"launch_server", r"pretrain_\w+\.py", r"torchrun", r"msrun", r"deepep",
                  r"deep_ep", r"tutel", r"lmdeploy", r"xllm",
                  r"lightllm", r"fastdeploy", r"rtp_llm", r"trtllm-serve")
# A line that starts a launch (its first word, after `VAR=value` assignments and a `$ ` prompt, is a launcher's
# program): a Markdown fence with no language tag is read as shell when one of its lines does (rtp-llm's guides).
LINE_STARTS = (r"(?:\S*/)?python[0-9.]*\s+-m\s+(?:" + "|".join(PYTHON_MODULES) + r")\b",
               r"(?:\S*/)?(?:vllm|sglang|lmdeploy|vllm-mindspore)\s+serve\b", r"(?:\S*/)?trtllm-serve\b",
               # Megatron-Bridge's scripts (bridge3): `python Megatron-Bridge/examples/conversion/x.py import ...`
               r"(?:\S*/)?python[0-9.]*\s+\S*(?:examples/conversion/|scripts/(?:training|performance|inference)/)"
               r"[\w/]+\.py\b", r"\S*scripts/conversion/convert\.sh\s+(?:import|export|roundtrip)\b",
               r"\S*scripts/training/train\.sh\b")
# Words that make a Markdown code block worth reading as a script.
MARKDOWN_WORDS = (r"\bvllm\b", r"\bsglang\b", r"\bdynamo\.\w", r"\btorchrun\b", r"\bmsrun\b", r"\bpretrain_\w+",
                  r"\bposttrain_\w+", r"\blaunch_server\b", r"\bdeepspeed\b",
                  r"\blmdeploy\b", r"\bxllm\b", r"\$\{?XLLM_\w+",
                  r"\blightllm\.server\b", r"\bfastdeploy\.entrypoints\b", r"\brtp_llm\.start_server\b",
                  r"\btrtllm-serve\b",
                  r"\bverl\.trainer\.", r"\bverl\.experimental\.", r"\brecipe\.\w+\.\w*main",
                  r"\brecipe\.(?:\w+\.){2,4}main_", r"\b(?:chatlearn/entrypoint|chatlearn_entrypoint)\.py\b",
                  r"\bmegatron[ \t]+(?:sft|pt|rlhf|export)\b", r"\btrain(?:_async)?\.py\b",
                  r"\bdist_config:") + BRIDGE_COMMANDS  # rlinf engineer: LLaMA-Factory v1's (dist_config); bridge3


# Lowercase substrings without which a Kubernetes object cannot hold a launch moecfg reads (sniff.py skips a big
# manifest bundle holding none of them unparsed): every word of the lists above, as plain text. Over-matching only
# costs a parse; a framework or trainer whose launch holds none of these words must add its own here
# (tests/sources/test_sniff.py checks that each list above is covered).
MANIFEST_WORDS = ("vllm", "sglang", "launch_server", "pretrain_", "posttrain_", "torchrun", "msrun", "deepep",
                  "deep_ep", "tutel", "lmdeploy", "xllm", "dynamo", "deepspeed", "mindie", "mindspeed", "megatron",
                  "torch.distributed", "verl", "recipe.", "train.py", "train_async.py", "chatlearn",
                  "convert.sh", "infer.sh", "run_recipe.py", "scripts/performance/", "examples/conversion/",
                  "scripts/inference/", "hf_to_megatron_generate_", "scripts/training/")  # bridge3
# (+ every word of LAUNCHERS below: a launch seen but not read is looked for in a bundle too)


def _either(parts) -> str:
    return "|".join(parts)


# The compiled patterns (module attributes), each compiled on first use: a moecfg document's check reads none
# of them (~1.5 ms of start-up). name -> (pattern, flags)
_PATTERNS = {
    # shell syntax repair: a broken region matters only if it holds one of these
    "SHELL_LAUNCH": lambda: (_either(COMMANDS + TRAINING_SCRIPTS), 0),
    # a YAML string value is a command when it holds one of these (and its first line starts with one)
    "YAML_LAUNCH": lambda: (_either(COMMANDS + BRIDGE_COMMANDS + (
        r"\bpython[0-9.]*\s+-m\s+(?:" + _either(PYTHON_MODULES) + r")\b",)), 0),
    "TEMPLATE_LAUNCH": lambda: (r"\b(?:" + _either(TEMPLATE_WORDS) + r")\b", re.I),
    # a template is worth an info (MC024) only when it holds a launch command written out, not a framework's name
    "TEMPLATE_COMMAND": lambda: (_either(COMMANDS + TRAINING_SCRIPTS + (
        r"\bpython[0-9.]*\s+-m\s+(?:" + _either(PYTHON_MODULES) + r")\b",)), 0),
    "MARKDOWN_LAUNCH": lambda: (_either(MARKDOWN_WORDS), 0),
    # an untagged Markdown fence: a line whose first word starts a launch
    "LINE_LAUNCH": lambda: (r"^[ \t]*(?:\$[ \t]+)?(?:[A-Za-z_]\w*=\S*[ \t]+)*(?:" + _either(LINE_STARTS) + ")", re.M),
}


def __getattr__(name: str):
    if name in _PATTERNS:
        globals()[name] = compiled = re.compile(*_PATTERNS[name]())
        return compiled
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- The recognition table of launchers (issue 30, /work/notes/COVERAGE.md) ---------------------------------------
# What a launch of each engine or trainer looks like as raw text, matched line by line (no parse) to say which
# launches a run saw but did not read. A pattern names a launch (a module path, an entry script, a CLI verb at
# command position), never a bare product name: "we use LightLLM" is prose, not a launch (tests/sources/
# test_launchers.py holds a launch line and a prose line for every entry).
SHELL, YAML, MARKDOWN, PY = "shell", "yaml", "markdown", "py"
ALL = frozenset((SHELL, YAML, MARKDOWN, PY))
# The start of a command: line start (a Markdown `$ ` prompt, `VAR=x` prefixes, a wrapper) or after `;`/`&&`/`|`,
# or inside a quoted string / YAML list item (`command: ["trtllm-serve", ...]`, `cmd = "megatron sft ..."`).
# A word of the prefix (`VAR=value`, a wrapper's `-option`) never runs across a character a command may start
# after (`;&|(["'` and backquote) except inside one quoted string: each start is then scanned to its own command word
# only, and a line of 4,096 `;a=` costs what its length does (tests/hardening/test_round4_sniffing.py); `\S*`
# there made every start scan the rest of the line (quadratic).
_PLAIN = r"[^\s;&|(\[\"'`]"
_WORD = _PLAIN + r"*(?:\"[^\"\n]*\"|'[^'\n]*')?"  # `A=x`, `A="0,1"`, `--opt='v'`: nothing after a quoted part
AT_COMMAND = (r"(?:^[ \t]*(?:[-*>][ \t]+|--[ \t]+)?(?:\$[ \t]+)?|[;&|(][ \t]*|[\"'`][ \t]*|\[[ \t]*)"
              r"(?:[A-Za-z_][A-Za-z0-9_]*=" + _WORD + r"[ \t]+)*"
              r"(?:(?:sudo|nohup|exec|time|env|srun|mpirun|uv[ \t]+run|poetry[ \t]+run)[ \t]+(?:-" + _WORD
              + r"[ \t]+)*)*")
# The arguments between a command word and its script: never across `;&|` (another command) and at most 512
# characters (each start scans at most that far: linear on any line; 141 is the longest in the measurement corpus)
_ARGS = r"[^#\n;&|]{0,512}"
# A file that sets expert parallelism (what makes a generic torchrun launch worth listing).
EP_FLAGS = (r"--ep\b|--ep[-_]size\b|expert[-_]model[-_]parallel|enable[-_]expert[-_]parallel|expert[-_]parallel[-_]size"
            r"|\bep_size\b|moe[-_]a2a[-_]backend")
PYTHON_M = r"python[0-9.]*[ \t]+(?:-" + _WORD + r"[ \t]+)*-m[ \t]+"  # `python3 -u -m <module>`
# A command's name quoted on its own (`pgrep -f "vllm serve"`, `wait_url_ready "vllm serve" ...`, vllm-ascend@182b75e
# tests/e2e/doctests/001-quickstart-test.sh:43,53) names the process, it does not start it
NAMED_ONLY = r"(?![\"'`])"


def _run(script: str) -> str:
    """A script path as a launch, not a name: an interpreter or launcher before it on the line (`uv run python
    x.py`, `cmd = ["torchrun", "x.py", ...]`), an option after it (`./x.py --recipe a`), or alone on its line (a word
    of a multi-line command or of a bash array: `"${ROOT_DIR}/scripts/training/run_recipe.py"`). A Python test's path
    string (`"scripts/training/run_recipe.py",`), prose (`the run_recipe.py entry point`) and a YAML list of files are
    names (NVIDIA-NeMo/Megatron-Bridge@067f987 tests/functional_tests/test_groups/diffusion/flux/test_flux_pretrain.py
    :17,59, skills/nemo-mbridge-mlm-bridge-training/card.yaml:40)."""
    before = r"\b(?:python[0-9.]*|torchrun|deepspeed|uv[ \t]+run|torch\.distributed\.(?:run|launch))\b" + _ARGS
    alone = rf"^[ \t]*[\"']?[\w${{}}./-]*{script}[\"']?[ \t]*\\?[ \t]*$"  # a word of a multi-line command / array
    return rf"{before}{script}|{script}[\"']?[ \t]+(?:\\|--?\w)|{alone}"


class Launcher:
    """One launcher: `name` (as users know it; the summary groups by it), `kind` ("engine" | "trainer"),
    `words` (literal substrings, one of which every launch line of it holds: only lines holding one are searched
    with the patterns, so most files cost a few `in` tests), `patterns` (regexes on one raw line), `surfaces` (where
    they are looked for), `requires` (a regex that must also match somewhere in the same file: slime's generic
    `train.py` with its `--rollout-` flags), `reason` (said when the launch is seen but not read)."""

    __slots__ = ("name", "kind", "words", "patterns", "surfaces", "requires", "reason")

    def __init__(self, name: str, kind: str, words: tuple, patterns: tuple, surfaces=ALL,
                 requires: str | None = None, reason: str | None = None):
        self.name, self.kind, self.words, self.patterns = name, kind, words, patterns
        self.surfaces, self.requires = surfaces, requires
        self.reason = reason or (f"engine not supported: {name}" if kind == "engine"
                                 else f"trainer launch not read: {name}")


LAUNCHERS = (
    # --- frameworks moecfg reads (a launch of theirs no reader picked up: a Markdown block not read, a command
    #     held in a variable, a Python file building it) ---
    # vLLM-MindSpore and xLLM: read from Markdown with --markdown; listed when a root walk leaves their guides
    # unread (jd-opensource/xllm@87e8d6ed docs/en/getting_started/launch_xllm.md:33 `/path/to/xllm \`)
    Launcher("vLLM-MindSpore", "engine", ("vllm-mindspore", "vllm_mindspore"),
             (AT_COMMAND + r"vllm-mindspore[ \t]+serve\b" + NAMED_ONLY, r"\bvllm_mindspore\.entrypoints\b"),
             reason="vLLM-MindSpore launch not read"),
    Launcher("xLLM", "engine", ("xllm", "XLLM_"),
             (AT_COMMAND + r"(?:[\w${}.~/-]*/)?xllm[ \t]+(?:\\|--?[a-z])",
              r"(?:^|[ \t])\$\{?XLLM_\w+\}?[ \t]+(?:\\|--?[a-z])"),  # after any wrapper (`numactl -C ...`)
             reason="xLLM launch not read"),
    Launcher("vLLM", "engine", ("vllm",),
             (AT_COMMAND + r"vllm[ \t]+serve\b" + NAMED_ONLY, r"\bvllm\.entrypoints\.(?:openai\.)?api_server\b"),
             reason="vLLM launch not read"),
    # vllm-ascend's accuracy tests: lm-eval builds a vLLM engine from the `serve:` keys beside `model_name:`
    # (vllm-ascend@182b75e tests/e2e/models/test_lm_eval_correctness.py:38-62, configs/*.yaml)
    Launcher("vLLM (lm-eval config)", "engine", ("serve",), (r"^serve[ \t]*:",), surfaces=frozenset((YAML,)),
             requires=r"(?m)^model_name[ \t]*:",
             reason="accuracy-test config (lm-eval runs vLLM with its serve: keys) not read"),
    # LMDeploy's autotest matrix: each `engine_config:` (tp / dp / ep ...) is an lmdeploy launch of the harness
    # (InternLM/lmdeploy@1263d5c autotest/configs/*/*.yml, read by autotest/utils/config_utils.py)
    Launcher("LMDeploy (autotest config)", "engine", ("engine_config",), (r"^[ \t]*engine_config[ \t]*:",),
             surfaces=frozenset((YAML,)), requires=r"(?m)^[ \t]*backends[ \t]*:",
             reason="LMDeploy test-matrix config (the autotest harness launches lmdeploy from it) not read"),
    # Dynamo's workers: `python -m dynamo.sglang` is read (frameworks/sglang), `dynamo.vllm` is not
    Launcher("Dynamo vLLM", "engine", ("dynamo.vllm",), (PYTHON_M + r"dynamo\.vllm\b",),
             reason="engine not supported: Dynamo's vLLM worker (python -m dynamo.vllm)"),
    Launcher("SGLang", "engine", ("sglang",), (r"\bsglang\.launch_server\b", PYTHON_M + r"dynamo\.sglang\b",
                                               AT_COMMAND + r"sglang[ \t]+serve\b" + NAMED_ONLY),
             reason="SGLang launch not read"),
    Launcher("Megatron-LM", "trainer", ("pretrain_", "posttrain_"),
             (AT_COMMAND + r"(?:torchrun|python[0-9.]*|deepspeed|msrun)\b" + _ARGS
              + r"\b(?:pretrain|posttrain)_\w+\.py\b",
              AT_COMMAND + r"(?:[\w${}./-]*/)?(?:pretrain|posttrain)_\w+\.py[ \t]+(?:\\|--?\w)"),
             reason="Megatron launch not read"),
    Launcher("LMDeploy", "engine", ("lmdeploy",), (AT_COMMAND + r"lmdeploy[ \t]+serve[ \t]+api_server\b",),
             reason="LMDeploy launch not read"),
    # --- RL and training frameworks (trainer engineer: add yours here) ---
    Launcher("verl", "trainer", ("verl.trainer",),
             (r"\bverl\.trainer\.(?:main_\w+|fsdp_sft_trainer|sft_trainer)\b",)),
    Launcher("verl", "trainer", ("verl.experimental.",), (r"\bverl\.experimental\.\w+\.\w*main\w*\b",)),
    # verl's recipes: `python3 -m recipe.dapo.main_dapo`
    Launcher("verl", "trainer", ("recipe.",), (PYTHON_M + r"recipe\.\w+\.main_\w+\b",)),
    Launcher("verl", "trainer", ("actor_rollout_ref",), (r"^actor_rollout_ref[ \t]*:",), surfaces=frozenset((YAML,)),
             reason="RL trainer config not read: verl"),
    Launcher("slime", "trainer", ("train.py", "train_async.py"),
             (AT_COMMAND + r"(?:python[0-9.]*|ray[ \t]+job[ \t]+submit\b)" + _ARGS.replace("}", "}?")
              + r"\btrain(?:_async)?\.py\b",),
             requires=r"--(?:sglang|rollout)-[a-z]"),
    Launcher("slime", "trainer", ("execute_train(",), (r"\bexecute_train\(",), surfaces=frozenset((PY,)),
             requires=r"--(?:sglang|rollout)-[a-z]"),  # slime's tests: command_utils.execute_train(train_args=...)
    Launcher("ms-swift megatron", "trainer", ("megatron",),
             (AT_COMMAND + r"megatron[ \t]+(?:sft|pt|rlhf|rm|export)\b",)),
    Launcher("ms-swift", "trainer", ("swift",), (AT_COMMAND + r"swift[ \t]+(?:rlhf|sft|pt)\b",)),
    Launcher("MindSpeed-RL", "trainer", ("cli/train_",),  # the script run (not a path in a list of files,
             # MindSpeed-RL@05a90d7 tests/run_coverage.sh:230-233 `"$BASE_DIR/cli/train_ppo.py"`)
             (r"\b(?:python[0-9.]*|torchrun|msrun|deepspeed)\b" + _ARGS
              + r"\bcli/train_(?:grpo|ppo|dapo|dpo)\w*\.py\b",)),
    Launcher("ROLL", "trainer", ("_pipeline.py",), (r"\bstart_\w+_pipeline\.py\b",)),
    Launcher("SkyRL", "trainer", ("skyrl",), (r"\bskyrl[_.]train\.entrypoints\.\w+",)),
    Launcher("AReaL", "trainer", ("areal.",), (r"\bareal\.(?:launcher|infra\.launcher)\.(?:local|ray|slurm)\b",)),
    Launcher("Megatron-Bridge", "trainer",
             ("--recipe", "run_recipe.py", "hf_to_megatron_", "hf_megatron_roundtrip", "megatron.bridge.recipes"),
             (r"\b(?:pretrain_\w+|finetune_\w+)\.py\b[^\n]*--recipe\b", _run(r"\brun_recipe\.py\b"),
              _run(r"\b(?:hf_to_megatron_\w+|hf_megatron_roundtrip\w*)\.py\b"),
              r"(?:^|[\s'\"])-m[\s'\",]+megatron\.bridge\.recipes\.\w+")),
    Launcher("Megatron-Bridge", "trainer", ("examples/conversion/",), (_run(r"\bexamples/conversion/\w+\.py\b"),),
             requires=r"\bmegatron\.bridge\b|Megatron-Bridge|megatron-bridge"),
    Launcher("Megatron-Bridge", "trainer", ("convert.sh", "CONVERT_SH"),
             (r"(?:\bconversion/convert\.sh|\$\{?CONVERT_SH\}?)\"?[ \t]+(?:import|export|roundtrip)\b",)),
    # bridge3: scripts/training/train.sh (trainers/megatron_bridge/train_sh.py)
    Launcher("Megatron-Bridge", "trainer", ("scripts/training/train.sh",),
             (r"\bscripts/training/train\.sh[\"']?(?:[ \t]+(?:\\|--?\w)|[ \t]*$)",)),
    Launcher("Megatron-Bridge", "trainer", ("scripts/performance/",),
             (_run(r"\bscripts/performance/(?:run_script|setup_experiment)\.py\b"),)),
    Launcher("torchtitan", "trainer", ("torchtitan", "--job.config"),
             (r"\btorchtitan[./]train\b", r"--job\.config[_-]file\b")),
    # --- trainers2 engineer: SkyRL's example entry points, ROLL / AReaL config files (dropped where a reader read them)
    Launcher("SkyRL", "trainer", ("examples.train.",), (r"(?:^|[ \t])-m[ \t]+examples\.train\.[\w.]+\.main_\w+\b",),
             requires=r"\b(?:trainer|generator)\.\w+"),
    Launcher("ROLL", "trainer", ("strategy_name",),
             (r"^[ \t]+strategy_name:[ \t]*[\"']?(?:megatron_(?:train|infer)|vllm|sglang)\b",),
             surfaces=frozenset((YAML,)), reason="RL trainer config not read: ROLL"),
    Launcher("AReaL", "trainer", ("backend",),
             (r"^[ \t]+backend:[ \t]*[\"']?(?:megatron|fsdp|archon)(?:\[\w+\])?:",),
             surfaces=frozenset((YAML,)), reason="RL trainer config not read: AReaL"),
    Launcher("MindSpeed-MM", "trainer", ("mindspeed_mm/fsdp/",), (r"\bmindspeed_mm/fsdp/train/trainer\.py\b",)),
    # --- nemorl engineer: NVIDIA NeMo-RL's entry scripts (trainers/nemo_rl reads them; listed where it did not:
    # a command held in a string, NVIDIA-NeMo/RL@7ea279abf examples/nemo_gym/nemotron-3-ultra/ultra_launch.sh:878)
    Launcher("NeMo-RL", "trainer", ("run_",), (_run(
        r"\bexamples/(?:run_(?:grpo|grpo_single_controller|grpo_sliding_puzzle|sft|dpo|distillation|eval|ppo|rm|"
        r"vlm_grpo|vlm_sft|xtoken_off_policy_distillation)|nemo_gym/run_(?:grpo|distillation)_nemo_gym)\.py\b"),)),
    # --- rlinf engineer: RLinf's configs (read by sources/recipes/rlinf.py: dropped where read) and entry scripts
    Launcher("RLinf", "trainer", ("training_backend",),
             (r"^[ \t]+training_backend:[ \t]*[\"']?(?:megatron|fsdp)\b",), surfaces=frozenset((YAML,)),
             requires=r"(?m)^cluster[ \t]*:", reason="RL trainer config not read: RLinf"),
    Launcher("RLinf", "trainer", ("main_grpo.py", "train_vlm_sft.py", "examples/agent/"),
             (r"\bexamples/(?:reasoning/main_grpo|sft/train_vlm_sft|agent/[\w/]+/(?:main_\w+|train))\.py\b"
              r"[^\n]*--config-name\b",)),
    # LLaMA-Factory: `USE_MCA=1 llamafactory-cli train x.yaml` (trainers/llamafactory reads it) and a v1
    # `dist_config` (sources/recipes/llamafactory.py reads it; a Markdown code block's is parsed for this word)
    Launcher("LLaMA-Factory", "trainer", ("llamafactory-cli", "lmf "),
             (r"\bUSE_(?:MCA|MEGATRON_BRIDGE|V1)=1\b[^\n]*\b(?:llamafactory-cli|lmf)[ \t]+train\b",)),
    Launcher("LLaMA-Factory", "trainer", ("dist_config",), (r"^dist_config[ \t]*:",), surfaces=frozenset((YAML,)),
             requires=r"(?m)^[ \t]+name:[ \t]*(?:fsdpturbo|fsdp2|deepspeed)\b",
             reason="trainer config not read: LLaMA-Factory v1"),
    # --- titanmm: MindSpeed-LLM's FSDP2 entry scripts (trainers/mindspeed_llm_fsdp2 reads them and their configs)
    Launcher("MindSpeed-LLM FSDP2", "trainer", ("_fsdp2.py",), (_run(r"\b(?:train|inference)_fsdp2\.py\b"),)),
    # --- primerl helper: prime-rl's console scripts (PrimeIntellect-ai/prime-rl@559b44772 pyproject.toml
    #     [project.scripts]) run by `uv run`, or named by the `@ config.toml` after them (trainers/prime_rl)
    Launcher("prime-rl", "trainer", ("uv run", " @ "),
             (r"\buv[ \t]+run[ \t]+(?:-" + _WORD + r"[ \t]+)*(?:rl|inference|trainer|sft|orchestrator)(?![-.\w])",
              AT_COMMAND + r"(?:rl|inference|trainer|sft|orchestrator)[ \t]+@[ \t]")),
    # --- verlpai engineer: ChatLearn (trainers/chatlearn; alibaba/ChatLearn@248875a chatlearn/entrypoint.py, Pai-
    #     Megatron-Patch's copy chatlearn_entrypoint.py) and its config; verl's nested recipe modules
    #     (verl-project/verl-recipe@48ea0a7 dapo/dapo_transfer_queue/30B_megatron_dapo_npu.sh:78)
    Launcher("ChatLearn", "trainer", ("entrypoint.py",),
             (r"\bpython[0-9.]*[ \t]+" + _ARGS + r"\b(?:chatlearn/entrypoint|chatlearn_entrypoint)\.py[ \t]+"
              r"(?:\\|[a-z]\w*\b)",)),
    Launcher("ChatLearn", "trainer", ("runtime_args",), (r"^runtime_args[ \t]*:",), surfaces=frozenset((YAML,)),
             requires=r"(?m)^[ \t]+policy_trainer[ \t]*:", reason="RL trainer config not read: ChatLearn"),
    Launcher("verl", "trainer", ("recipe.",), (PYTHON_M + r"recipe\.(?:\w+\.){2,4}main_\w+\b",)),
    # Pai-Megatron-Patch (alibaba/Pai-Megatron-Patch@a098ca5): its READMEs run the example scripts with positional
    # arguments (examples/qwen3/README.md:111 `sh run_mcore_qwen3.sh dlc A3B 1 8 ...`; the script reads TP=${10} ..
    # EP=${14}, run_mcore_qwen3.sh:37-41, and picks the model in `if [ $MODEL_SIZE = A3B ]` branches); its checkpoint
    # convertors run Megatron's model under torchrun (toolkits/model_checkpoints_convertor/*/hf2mcore_*.py,
    # toolkits/distributed_checkpoints_convertor/impl/convert.py)
    Launcher("Pai-Megatron-Patch script", "trainer", ("run_", "hf2m"),
             (AT_COMMAND + r"(?:sh|bash)[ \t]+(?:\./)?(?:[\w.-]+/){0,6}(?:run_(?!make_)\w+|hf2m\w+)\.sh[ \t]+"
              r"(?:\\|[\w$/.~\"'-])",), surfaces=frozenset((SHELL, MARKDOWN)), requires=r"Pai-Megatron-Patch",
             reason="an example script run with positional arguments ($1..$N set its Megatron flags): not read"),
    Launcher("Pai-Megatron-Patch convertor", "trainer", ("hf2m", "impl/convert.py"),
             (AT_COMMAND + r"torchrun\b" + _ARGS + r"(?:\bhf2m\w+|\bimpl/convert)\.py\b",),
             reason="checkpoint conversion (Pai-Megatron-Patch toolkits): not read"),
    # --- other serving engines (DeepEP-engines engineer: add yours here) ---
    Launcher("LightLLM", "engine", ("lightllm",), (r"\blightllm\.server\.api_server\b",)),
    Launcher("FastDeploy", "engine", ("fastdeploy",), (r"\bfastdeploy\.entrypoints\.\w+",)),
    # FastDeploy's engine YAML (its EngineArgs as keys; `kv_cache_ratio` is FastDeploy's own: vLLM configs share
    # `enable_expert_parallel`): listed, not read (frameworks/fastdeploy reads the command line only)
    Launcher("FastDeploy", "engine", ("enable_expert_parallel",), (r"^enable_expert_parallel[ \t]*:",),
             surfaces=frozenset((YAML,)), requires=r"(?m)^kv_cache_ratio[ \t]*:",
             reason="FastDeploy engine YAML not read"),
    Launcher("rtp-llm", "engine", ("rtp_llm",), (r"\brtp_llm\.start_server\b",)),
    Launcher("TensorRT-LLM", "engine", ("trtllm-",),
             (AT_COMMAND + r"trtllm-serve(?:[ \t]+(?:serve|disaggregated)\b|[ \t]+[\w$./~\"'-])",
              AT_COMMAND + r"trtllm-llmapi-launch\b")),
    # --- mlmwild engineer: launches near Megatron's that are not Megatron's arguments ---
    # MindSpeed-LLM's FSDP2 YAML (parallel.ep_size / ep_fsdp_size: Ascend/MindSpeed-LLM@c77308a
    # mindspeed_llm/fsdp2/utils/arguments.py:382-383), where trainers/mindspeed_llm_fsdp2 did not read the file
    Launcher("MindSpeed-LLM FSDP2", "trainer", ("ep_fsdp_size",), (r"^[ \t]+ep_fsdp_size[ \t]*:",),
             surfaces=frozenset((YAML,)), requires=r"(?m)^parallel[ \t]*:",  # mindspeed_llm/fsdp2/utils/arguments.py:382-383
             reason="trainer config not read: MindSpeed-LLM FSDP2 (train_fsdp2.py's YAML, parallel.ep_size / ep_fsdp_size)"),
    # Megatron-LM's ModelOpt scripts: the entry script picked in an if/else (train.sh: PRETRAIN_EXE is
    # pretrain_hybrid.py or pretrain_gpt.py), and the environment files that set their sizes (SANDBOX_ENV_SETUP,
    # examples/post_training/modelopt/ADVANCED.md:34-70) for a script and model chosen at launch ($1: MLM_MODEL_CFG)
    Launcher("Megatron-LM", "trainer", ("PRETRAIN_EXE",), (AT_COMMAND + r"(?:\$\{?\w+\}?[ \t]+)?\"?\$\{?PRETRAIN_EXE\b",),
             surfaces=frozenset((SHELL,)), requires=r"pretrain_\w+\.py",
             reason="Megatron launch not read: its entry script is chosen at run time (PRETRAIN_EXE set in an if/else)"),
    Launcher("Megatron-LM ModelOpt", "trainer", ("EP=",), (r"^EP=\d+[ \t]*$",), surfaces=frozenset((SHELL,)),
             requires=r"(?m)^ETP=\d+[ \t]*$(?s:.*)^HF_MODEL_CKPT=|^HF_MODEL_CKPT=(?s:.*)^ETP=\d+[ \t]*$",
             reason="ModelOpt environment file (SANDBOX_ENV_SETUP: TP / ETP / EP of examples/post_training/modelopt/"
                    "*.sh) not read: the script and model it configures are chosen at launch (MLM_MODEL_CFG, $1)"),
    # miles (a slime fork): a checkpoint conversion called from Python in a shell script (`python3 -c "...
    # convert_checkpoint(..., extra_args='--expert-model-parallel-size 8')"`): radixark/miles@31f1ca9
    # miles/utils/external_utils/command_utils.py:35-76 builds `torchrun tools/convert_hf_to_torch_dist.py` from it
    Launcher("miles", "trainer", ("convert_checkpoint(",), (r"\bconvert_checkpoint\(",), surfaces=frozenset((SHELL,)),
             requires=r"miles\.utils\.external_utils",
             reason="checkpoint conversion built in Python (miles' convert_checkpoint: torchrun "
                    "tools/convert_hf_to_torch_dist.py with Megatron's arguments) not read"),
    # slime / miles checkpoint conversion: Megatron's parser, but PP re-derived from the world size when it is 1
    # (radixark/miles@31f1ca9 tools/convert_hf_to_torch_dist.py:50-90); it builds no MoE dispatcher
    Launcher("slime/miles", "trainer", ("convert_hf_to_torch_dist",), (_run(r"\bconvert_hf_to_torch_dist\.py\b"),),
             reason="checkpoint conversion (tools/convert_hf_to_torch_dist.py: Megatron's arguments, PP re-derived "
                    "from the world size, no MoE dispatch) not read"),
    # miles' Python launchers (scripts/run_*.py, examples' run-*.py): they build the train.py launch in Python
    # (radixark/miles@31f1ca9 miles/utils/external_utils/command_utils.py execute_train), which is not read
    Launcher("miles", "trainer", ("run_", "run-"), (r"\bpython[0-9.]*[ \t]+(?:[\w./-]*/)?run[_-][\w.-]*\.py\b",),
             surfaces=frozenset((SHELL, MARKDOWN)), requires=r"\bmiles\b",
             reason="miles Python launcher (it builds the train.py launch in Python) not read"),
    # Megatron-LM's functional tests of NeMo: the harness runs `nemo llm pretrain -y --factory X` with MODEL_ARGS as
    # NeMo 2.0 overrides (NVIDIA/Megatron-LM@d98e8a6 tests/functional_tests/shell_test_utils/_run_training.sh:93-117,
    # 219-226; tests/test_utils/recipes/h100/gpt-nemo.yaml TRAINING_SCRIPT_PATH)
    Launcher("NeMo", "trainer", ("MODEL_ARGS",), (r"^MODEL_ARGS[ \t]*:",),
             surfaces=frozenset((YAML,)), requires=r"(?m)^[ \t]+trainer\.strategy\.\w+[ \t]*:",
             reason="NeMo 2.0 launch not read (Megatron-LM's test harness runs `nemo llm pretrain` with these "
                    "MODEL_ARGS overrides)"),
    # --- qa2 helper: a copy of Megatron-Bridge's performance launcher beside it (AI-Hypercomputer/gpu-recipes@2e1fd5e
    # training/a4/qwen3_235b_a22b/megatron-bridge-gke/nemo2602/128gpus-bf16-seq4096-gbs4096/recipe/launcher.sh:84,110:
    # `cp $CUSTOM_SETUP_EXPERIMENT_SCRIPT_PATH scripts/performance/`, then `python scripts/performance/
    # custom_setup_experiment.py --model_recipe_name ...`; the copy imports Megatron-Bridge's argument_parser, :14), and
    # NeMo 1.x training configs (megatron_gpt_pretraining.py's Hydra config: a top-level `exp_manager:` and the model's
    # `expert_model_parallel_size:`, NVIDIA/NeMo@8cfedd7 examples/nlp/language_modeling/conf/megatron_gpt_config.yaml:36,87)
    Launcher("Megatron-Bridge", "trainer", ("_setup_experiment.py",),
             (_run(r"\bscripts/performance/\w+_setup_experiment\.py\b"),),
             reason="trainer launch not read: Megatron-Bridge (a copy of scripts/performance/setup_experiment.py)"),
    Launcher("NeMo", "trainer", ("exp_manager",), (r"^exp_manager[ \t]*:",), surfaces=frozenset((YAML,)),
             requires=r"(?m)^[ \t]+expert_model_parallel_size[ \t]*:",
             reason="NeMo 1.x training config not read (the Hydra config of NeMo's megatron_gpt_pretraining.py)"),
    # --- lead: a launch script of the tree run with expert-parallel settings in its environment; the launch it
    #     builds is not read from the calling line (yanring/Megatron-MoE-ModelZoo@e865051 best_practice/qwen3/
    #     run_30b.sh:27 `PP=1 VPP=1 TP=1 EP=8 NNODES=4 bash ./sbatch_benchmarking.sh ...`, which takes its Megatron
    #     flags from YAML with yq); a script moecfg follows (sources/shell/called.py) covers the line
    Launcher("launch script", "trainer", ("EP=",),
             (AT_COMMAND + r"(?:[A-Za-z_][A-Za-z0-9_]*=[^ \t\n;&|]{0,128}[ \t]+){0,16}?EP=[0-9$][^ \t\n;&|]{0,128}[ \t]+"
              r"(?:[A-Za-z_][A-Za-z0-9_]*=[^ \t\n;&|]{0,128}[ \t]+){0,16}(?:bash|sh)[ \t]+[^ \t\n;&|]{1,256}\.sh\b",),
             surfaces=frozenset((SHELL, MARKDOWN)),
             reason="a launch script run with expert-parallel settings in its environment (EP=...): the launch it "
                    "builds is not read from this line"),
    # --- keep last: a distributed launch of a script no entry above names, in a file that sets expert parallelism
    Launcher("torchrun", "trainer", ("torchrun", "torch.distributed.run", "torch.distributed.launch"),
             (AT_COMMAND + r"(?:torchrun|" + PYTHON_M + r"torch\.distributed\.(?:run|launch))\b",),
             requires=EP_FLAGS, reason="distributed launch of a script moecfg does not know (not read)"),
)

# A manifest bundle is parsed when it holds a word of any launcher, read or not (sniff.py; coverage lists the others)
MANIFEST_WORDS = MANIFEST_WORDS + tuple(dict.fromkeys(
    w.lower() for launcher in LAUNCHERS for w in launcher.words if w.lower() not in MANIFEST_WORDS))
