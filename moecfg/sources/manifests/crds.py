"""Serving runtimes as custom resources: container specs that sit outside a pod template, the environment their
controllers inject, and launches a controller composes from parallelism fields.

- NVIDIA Dynamo `DynamoGraphDeployment`: `spec.services.<name>.extraPodSpec.mainContainer` (command/args), with
  `spec.envs` and the service's `envs` before the container's own `env` (ai-dynamo/dynamo@1cc36a6
  recipes/deepseek-r1/sglang-wideep/tep8p-dep8d-disagg.yaml). The service name is the role (prefill / decode).
- OME `ClusterServingRuntime` / `ServingRuntime`: `spec.{engineConfig,decoderConfig}.{leader,worker,}.runner`.
  The OME controller sets PARALLELISM_SIZE = the runner's GPUs x (1 leader + `worker.size`) and MODEL_PATH
  (sgl-project/ome@17b77ed pkg/controller/v1beta1/inferenceservice/components/engine.go:137-150,349-370,
  base.go:144-161); the runtime runs as a LeaderWorkerSet of 1 + `worker.size` pods (LWS_GROUP_SIZE).
- KServe `LLMInferenceService`: no command of its own; the well-known config runs `vllm serve /mnt/models` with
  `--tensor-parallel-size`, and when `spec.parallelism.data` is set `--enable-expert-parallel` (expert: true),
  `--data-parallel-size`, `--data-parallel-size-local` (default 1), then `$VLLM_ADDITIONAL_ARGS`
  (kserve/kserve@aaac4e2 config/llmisvcconfig/config-llm-template.yaml:166-177,
  config-llm-worker-data-parallel.yaml:188-206). `spec.prefill` is the prefill role, read the same way.
Any other mapping under `mainContainer:` / `runner:` holding a command is read as a container too.
"""
from __future__ import annotations

import shlex

from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Word
from moecfg.sources.shell.words import Var
from moecfg.sources.shell.values import _UNKNOWN as _UNKNOWN_MARK  # an unknown piece of a heredoc (shell/heredoc_manifest.py)

CONTAINER_KEYS = ("mainContainer", "runner")
_OME_KINDS = ("ClusterServingRuntime", "ServingRuntime")
_GPU = ("nvidia.com/gpu", "amd.com/gpu", "huawei.com/Ascend910", "huawei.com/ascend-1980")


def container_specs(data) -> list[tuple]:
    """Paths of container specs under `mainContainer:` / `runner:` that hold a command or args."""
    from moecfg.sources.manifests.launch import mappings

    return [p for p, node in mappings(data) if p and p[-1] in CONTAINER_KEYS
            and (node.get("command") or node.get("args"))]


def role_name(path: tuple) -> str | None:
    """The service or config a container belongs to (Dynamo `services.decode`, OME `decoderConfig`)."""
    if "services" in path and path.index("services") + 1 < len(path):
        return str(path[path.index("services") + 1])
    if "decoderConfig" in path:
        return "decode"
    return None


def injected_env(r, path: tuple) -> dict:
    """What the controller puts in the container's environment before its own `env:` (see the module text)."""
    data = r.doc.data
    kind = data.get("kind")
    if kind == "DynamoGraphDeployment":
        out = _env_list(r, ("spec", "envs"))
        if "services" in path:
            out.update(_env_list(r, path[:path.index("services") + 2] + ("envs",)))
        return out
    if kind in _OME_KINDS:
        return _ome_env(r, path)
    return {}


def _env_list(r, path: tuple) -> dict:
    from moecfg.sources.manifests.launch import get

    try:
        env = get(r.doc.data, path)
    except (KeyError, IndexError, TypeError):
        return {}
    out = {}
    for i, e in enumerate(env if isinstance(env, list) else []):
        if isinstance(e, dict) and isinstance(e.get("name"), str):
            value = e.get("value")
            known = "valueFrom" not in e and value is not None and not isinstance(value, (dict, list))
            out[e["name"]] = Var(str(value) if known else None, r.span(path + (i,)), exported=True)
    return out


def _ome_env(r, path: tuple) -> dict:
    """PARALLELISM_SIZE, LWS_GROUP_SIZE (known from the runtime), MODEL_PATH and the per-pod LWS values (unknown)."""
    from moecfg.sources.manifests.launch import get

    config_path = next((path[:i + 1] for i, k in enumerate(path) if k in ("engineConfig", "decoderConfig")), None)
    out = {n: Var(None, r.span(path), exported=True) for n in ("MODEL_PATH", "LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX")}
    if config_path is None:
        return out
    config = get(r.doc.data, config_path)
    worker = config.get("worker") if isinstance(config, dict) else None
    size = worker.get("size", 0) if isinstance(worker, dict) else 0
    size_span = r.span(config_path + ("worker", "size")) if isinstance(worker, dict) and "size" in worker else None
    if not isinstance(size, int) or isinstance(size, bool):
        return out
    out["LWS_GROUP_SIZE"] = Var(str(1 + size), size_span or r.span(config_path), exported=True)
    gpus = _gpus(get(r.doc.data, path))
    if gpus is not None:
        out["PARALLELISM_SIZE"] = Var(str(gpus * (1 + size)), r.span(path + ("resources",)), exported=True)
    else:
        out["PARALLELISM_SIZE"] = Var(None, r.span(path), exported=True)
    return out


def _gpus(container) -> int | None:
    res = container.get("resources") if isinstance(container, dict) else None
    for table in ("limits", "requests"):
        t = res.get(table) if isinstance(res, dict) else None
        for name in _GPU:
            v = t.get(name) if isinstance(t, dict) else None
            if isinstance(v, int) and not isinstance(v, bool) or isinstance(v, str) and v.isdigit():
                return int(v)
    return None


# --- KServe LLMInferenceService ------------------------------------------------------------------------------------
def read_llm_inference_service(doc, text: str) -> LaunchFile | None:
    data = doc.data
    if data.get("kind") != "LLMInferenceService" or not isinstance(data.get("spec"), dict):
        return None
    from moecfg.sources.manifests.launch import DocReader

    r = DocReader(doc, text, "k8s")
    hints = r.hints()
    spec = data["spec"]
    for role, base in (("serve", ("spec",)), ("prefill", ("spec", "prefill"))):
        node = spec if role == "serve" else spec.get("prefill")
        if isinstance(node, dict) and _main_without_command(node):
            if _unknown_expert(node):  # the controller's --enable-expert-parallel may be there or not: not guessed
                from moecfg.sources.launch import Unread
                r.out.unread.append(Unread(r.span(base + ("parallelism", "expert")), "KServe LLMInferenceService",
                                           "parallelism.expert holds a value the script does not know"))
                continue
            r.out.launches.append(_llmisvc_launch(r, spec, node, base, role, hints))
    if r.out.unread and not r.out.launches:
        r.out.skipped = "LLMInferenceService whose parallelism.expert is not known"
        return r.out
    if not r.out.launches:
        r.out.skipped = "LLMInferenceService whose containers run their own command (read as a pod template)"
        return None
    return r.out


def _main_without_command(node: dict) -> bool:
    main = _main(node)
    return main is None or not (main[1].get("command") or main[1].get("args"))


def _main(node: dict):
    template = node.get("template")
    containers = template.get("containers") if isinstance(template, dict) else None
    for i, c in enumerate(containers if isinstance(containers, list) else []):
        if isinstance(c, dict) and c.get("name") == "main":
            return i, c
    return None


def _unknown_expert(node: dict) -> bool:
    """`expert: ${EP}` in a heredoc the script expands without knowing EP (shell/heredoc_manifest.py)."""
    par = node.get("parallelism")
    return isinstance(par, dict) and isinstance(par.get("expert"), str) and _UNKNOWN_MARK in par["expert"]


def _llmisvc_launch(r, spec: dict, node: dict, base: tuple, role: str, hints) -> Launch:
    par: dict = node["parallelism"] if isinstance(node.get("parallelism"), dict) else {}
    p = base + ("parallelism",)
    at = r.doc.keys.get(p) or r.doc.keys.get(base + ("template",)) or r.span(base)
    words = [Word("vllm", at, False), Word("serve", at, False), Word("/mnt/models", at, False)]

    def flag(name: str, key: str, default=None):
        value = par.get(key, default)
        if value is None or isinstance(value, (bool, dict, list)):
            return
        words.extend([Word(name, r.doc.keys.get(p + (key,), at), False), Word(str(value), r.span(p + (key,))
                      if key in par else at, key in par)])
    if par.get("data") is not None or par.get("dataLocal") is not None:  # the data-parallel worker config
        if par.get("expert") is True:
            words.append(Word("--enable-expert-parallel", r.doc.keys.get(p + ("expert",), at), False))
        flag("--tensor-parallel-size", "tensor")
        flag("--data-parallel-size", "data", 1)
        flag("--data-parallel-size-local", "dataLocal", 1)
    else:
        flag("--tensor-parallel-size", "tensor")
    main = _main(node) or _main(spec) if role == "prefill" else _main(node)
    env, image = {}, None
    if main is not None:
        cpath = base + ("template", "containers", main[0]) if _main(node) else ("spec", "template", "containers", main[0])
        image = main[1].get("image") if isinstance(main[1].get("image"), str) else None
        env = {n: EnvEntry(n, v.value, v.span) for n, v in _env_list(r, cpath + ("env",)).items()}
        extra = env.get("VLLM_ADDITIONAL_ARGS")
        if extra is not None and extra.value is not None:
            words.extend(Word(w, extra.span, False) for w in _split(extra.value))
        elif extra is not None:
            words.append(Word(None, extra.span, False, "${VLLM_ADDITIONAL_ARGS}"))
    return Launch(tuple(words), env, "k8s", image, role, hints)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


__all__ = ["CONTAINER_KEYS", "container_specs", "role_name", "injected_env", "read_llm_inference_service"]
