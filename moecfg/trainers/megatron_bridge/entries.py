"""What a Megatron-Bridge launch that is not run_recipe.py / setup_experiment.py looks like (recognition only: regular
expressions and the Megatron entry's list of file tools, so recognising any launch stays cheap): convert.sh, infer.sh
and the rank-local conversion / generation scripts (conversion.py derives them), scripts/training/train.sh (train_sh.py).

Read at NVIDIA-NeMo/Megatron-Bridge@067f987; each script's parser is cited in SCRIPTS.
"""
from __future__ import annotations

import os
import re


class _Lazy:
    """A pattern compiled on first use (re's own cache): importing this module compiles none of its 28 patterns."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str):
        self.pattern = pattern

    def search(self, text: str):
        return re.search(self.pattern, text)


CONVERT = _Lazy(r"(?:^|/)scripts/conversion/convert\.sh$")
INFER = _Lazy(r"(?:^|/)scripts/inference/infer\.sh$")
_SUBCOMMANDS = ("import", "export", "roundtrip")
TRAIN_SH = _Lazy(r"(?:^|/)scripts/training/(?:train\.sh|setup_experiment\.py)$")


def names_only(argv) -> bool:
    """The command names a script without running it: a printer (`printf '[dry-run] %q ' "${CMD[@]}"`) or a file tool
    (`sed -i ... scripts/performance/run_script.py`: AI-Hypercomputer/gpu-recipes@2e1fd5e training/a4/qwen3_235b_a22b/
    megatron-bridge-gke/nemo2602/128gpus-bf16-seq4096-gbs4096/recipe/launcher.sh:82 patches its pinned clone so)."""
    first = argv[0].value if argv else None
    if first is None:
        return False
    from moecfg.frameworks import NOT_A_RUNNER  # the frameworks' list (frameworks.recognise holds it too)

    return os.path.basename(first) in NOT_A_RUNNER


class Script:
    """A rank-local script: what it does, where its --tp/--pp/--ep/--etp are (None: it takes none), and whether it
    runs forward passes (token dispatch). `etp`: it takes --etp (else the provider's expert-TP: not known);
    `defaults`: --tp, --pp, --ep, --etp when not written; `gone`: not in the release read, the commit that removed it
    (its last version is read). (A plain class: recognising a launch imports no dataclasses.)"""

    __slots__ = ("name", "what", "sizes_at", "dispatches", "etp", "defaults", "gone")

    def __init__(self, name: _Lazy, what: str, sizes_at: str | None, dispatches: bool, etp: bool = True,
                 defaults: tuple[int, int, int, int] = (1, 1, 1, 1), gone: str | None = None):
        self.name, self.what, self.sizes_at, self.dispatches = name, what, sizes_at, dispatches
        self.etp, self.defaults, self.gone = etp, defaults, gone


SCRIPTS = (
    Script(_Lazy(r"(?:^|/)examples/conversion/hf_megatron_roundtrip_multi_gpu\.py$"), "round-trip conversion",
           "examples/conversion/hf_megatron_roundtrip_multi_gpu.py:355-358", False),
    Script(_Lazy(r"(?:^|/)examples/conversion/(?:hf_megatron_roundtrip|convert_megatron_mimo)\.py$"),
           "conversion", None, False),
    Script(_Lazy(r"(?:^|/)examples/conversion/hf_to_megatron_generate_text\.py$"), "text generation",
           "examples/conversion/hf_to_megatron_generate_text.py:420-427", True),
    Script(_Lazy(r"(?:^|/)examples/conversion/hf_to_megatron_generate_vlm\.py$"), "VLM generation",
           "examples/conversion/hf_to_megatron_generate_vlm.py:434-437", True),
    Script(_Lazy(r"(?:^|/)examples/conversion/hf_to_megatron_generate_omni_lm\.py$"), "omni generation",
           "examples/conversion/hf_to_megatron_generate_omni_lm.py:456-459", True),
    Script(_Lazy(r"(?:^|/)examples/conversion/hf_to_megatron_generate_audio_lm\.py$"), "audio generation",
           "examples/conversion/hf_to_megatron_generate_audio_lm.py:431-434", True),
    Script(_Lazy(r"(?:^|/)examples/conversion/compare_hf_and_megatron/compare\.py$"), "HF / Megatron comparison",
           "examples/conversion/compare_hf_and_megatron/compare.py:1076-1079", True),
    Script(_Lazy(r"(?:^|/)scripts/inference/text_generation\.py$"), "text generation",
           "src/megatron/bridge/inference/text_generation.py:446-449", True),
    Script(_Lazy(r"(?:^|/)scripts/inference/vlm_generation\.py$"), "VLM generation",
           "scripts/inference/vlm_generation.py:421-424", True),
    Script(_Lazy(r"(?:^|/)examples/models/nemotron/nemotron_3_omni/hf_to_megatron_generate_nemotron_omni\.py$"),
           "omni generation", "examples/models/nemotron/nemotron_3_omni/hf_to_megatron_generate_nemotron_omni.py"
           ":1005-1008", True),
    # no --etp (:342-344): the expert-TP is the provider's, not known here
    Script(_Lazy(r"(?:^|/)examples/models/vlm/ernie_vl/hf_to_megatron_generate_ernie_vl\.py$"),
           "VLM generation", "examples/models/vlm/ernie_vl/hf_to_megatron_generate_ernie_vl.py:342-344", True,
           etp=False),
    Script(_Lazy(r"(?:^|/)examples/conversion/hf_megatron_roundtrip_benchmark\.py$"), "round-trip benchmark",
           "examples/conversion/hf_megatron_roundtrip_benchmark.py:160-163", False),
    Script(_Lazy(r"(?:^|/)examples/conversion/adapter/export_adapter\.py$"), "adapter export",
           "examples/conversion/adapter/export_adapter.py:125-128", False),
    Script(_Lazy(r"(?:^|/)examples/peft/merge_lora\.py$"), "LoRA merge", "examples/peft/merge_lora.py:97-99",
           False, etp=False),
    # verify_adapter.py runs forward passes (:94-96); no --etp (:82-84)
    Script(_Lazy(r"(?:^|/)examples/conversion/adapter/verify_adapter\.py$"), "adapter verification",
           "examples/conversion/adapter/verify_adapter.py:82-84", True, etp=False),
    # the quantization examples: calibration and generation run forward passes; export.py is not read further
    Script(_Lazy(r"(?:^|/)examples/quantization/(?:quantize|quantize_vlm|ptq_generate|ptq_generate_vlm|export)"
                      r"\.py$"), "quantization", "examples/quantization/quantize_utils.py:256-259", True),
    Script(_Lazy(r"(?:^|/)examples/models/nemotron/nemotron_3_omni/cord_v2_inference\.py$"), "CORD-v2 inference",
           "examples/models/nemotron/nemotron_3_omni/cord_v2_inference.py:278-281", True, defaults=(4, 1, 2, 1)),
    Script(_Lazy(r"(?:^|/)examples/models/nemotron/nemotron_3_omni/valor32k_avqa_inference\.py$"),
           "VALOR32K inference", "examples/models/nemotron/nemotron_3_omni/valor32k_avqa_inference.py:481-484", True),
    # removed by c8344d0f4 (feat(conversion): add shared checkpoint launcher), which added convert.sh: the versioned
    # docs (docs/fern/versions/0.4.2) still launch them; read as their last version, c8344d0f4^
    Script(_Lazy(r"(?:^|/)examples/conversion/convert_checkpoints\.py$"), "conversion", None, False,
           gone="c8344d0f4 (its last version c8344d0f4^ examples/conversion/convert_checkpoints.py:223-256: one "
                "process)"),
    Script(_Lazy(r"(?:^|/)examples/conversion/convert_checkpoints_multi_gpu\.py$"), "conversion",
           "c8344d0f4^ examples/conversion/convert_checkpoints_multi_gpu.py:271-275", False,
           gone="c8344d0f4 (its last version c8344d0f4^ examples/conversion/convert_checkpoints_multi_gpu.py)"),
)
def _path(w) -> str:
    return w.value or w.pattern or ""


def find(launch) -> tuple[str, int] | None:
    """("convert" | "infer" | "script", index of the word) for a launch of these, or None. `"${CONVERT_SH}" roundtrip
    --hf-model ...` (the examples' slurm_conversion.sh: the variable's default is convert.sh, but it may be set from
    outside) is convert.sh's subcommand and its required --hf-model after a program not known statically."""
    argv = launch.argv
    if not argv or names_only(argv):
        return None
    for i, w in enumerate(argv):
        text = _path(w)
        if CONVERT.search(text) and i + 1 < len(argv) and argv[i + 1].value in _SUBCOMMANDS:
            return "convert", i
        if INFER.search(text):
            return "infer", i
        if i and text.endswith(".py") and any(s.name.search(text) for s in SCRIPTS):  # every SCRIPTS name ends .py
            return "script", i
    words = [w.value for w in argv]
    if argv[0].value is None and len(argv) > 2 and words[1] in _SUBCOMMANDS and \
            any(v in ("--hf-model", "--hf-model-id") for v in words[2:]):
        return "convert", 0
    return None


def train_sh(launch) -> int | None:
    """Index of scripts/training/train.sh (or the setup_experiment.py it execs), or None."""
    if names_only(launch.argv):
        return None
    return next((i for i, w in enumerate(launch.argv) if (w.value or w.pattern)
                 and TRAIN_SH.search(w.value or w.pattern) and (i > 0 or (w.value or "").endswith(".sh"))), None)
