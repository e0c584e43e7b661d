"""One YAML document that is not moecfg's, read for launches: a Kubernetes object (KServe LLMInferenceService,
pod templates), a docker-compose file, a recipe spelling flags as keys, a vllm-project/recipes model recipe
(`name`: its file, `root`: the folder checked; recipes/vllm.py), or a YAML config holding a launch
command; None when it is none of these. Its own module: readers.py and documents/markdown.py (YAML code blocks) both
call it, and readers.py calls documents/markdown.py."""
from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from moecfg.sources.launch import LaunchFile
    from moecfg.sources.manifests.yaml_source import YamlDocument


def read_yaml_document(doc: YamlDocument, text: str, name: str = "", root: str | None = None,
                       docs: bool = False) -> LaunchFile | None:
    from moecfg.sources.manifests import compose, kubernetes, commands as yaml_commands
    if kubernetes.is_kubernetes(doc.data):
        from moecfg.sources.manifests.crds import read_llm_inference_service
        return (read_llm_inference_service(doc, text) or kubernetes.read_kubernetes(doc, text, name)
                or yaml_commands.read_yaml_commands(doc, text))
    if compose.is_compose(doc.data):
        return compose.read_compose(doc, text, name)
    from moecfg.sources.recipes.srt_slurm import read_megatron_test, read_recipe  # flags spelled as keys
    from moecfg.sources.recipes.megatron_perf import read_perf_config, read_perf_recipe  # sizes + an args file
    from moecfg.sources.recipes.miles_sglang import read_miles_config  # miles' --sglang-config server groups
    from moecfg.sources.recipes.vllm import read_vllm_recipe  # args lists composed with strategies/*.yaml
    from moecfg.sources.recipes.mindspeed_rl import read_mindspeed_rl  # trainers' configs, settings as keys
    from moecfg.sources.recipes.verl_config import read_verl_config
    from moecfg.sources.recipes.roll import read_roll_config
    from moecfg.sources.recipes.areal import read_areal_config
    from moecfg.sources.recipes.mindspeed_mm import read_mindspeed_mm_config
    from moecfg.sources.recipes.rlinf import read_rlinf_config
    from moecfg.sources.recipes.llamafactory import read_llamafactory_config
    from moecfg.sources.recipes.mindspeed_llm_fsdp2 import read_mindspeed_llm_fsdp2
    from moecfg.sources.recipes.nemo_rl import read_nemo_rl_config
    from moecfg.sources.recipes.chatlearn import read_chatlearn_config
    return read_vllm_recipe(doc, name, root, text, docs) or read_recipe(doc) or read_megatron_test(doc) \
        or read_perf_config(doc, name, root) or read_perf_recipe(doc, name, root) or read_miles_config(doc) \
        or read_mindspeed_rl(doc, name, root) or read_verl_config(doc, name, root) or read_roll_config(doc) \
        or read_areal_config(doc) or read_mindspeed_mm_config(doc) or read_mindspeed_llm_fsdp2(doc) \
        or read_nemo_rl_config(doc, name, root) or read_chatlearn_config(doc) \
        or read_rlinf_config(doc) or read_llamafactory_config(doc) or yaml_commands.read_yaml_commands(doc, text)
