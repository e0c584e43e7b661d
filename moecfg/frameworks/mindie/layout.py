"""One MindIE ModelConfig entry read once: the parallel sizes as MindIE resolves them, the scheduler limits, MTP, the
product and the model, each with the spans of the JSON keys that set it (findings point there).

Sources (Ascend/MindIE-LLM@8b4871a): group sizes runtime/utils/distributed/parallel_info_manager.py:201-226 (absent
or -1: tp and moe_tp the world size, dp / cp / moe_ep / sp 1, :372-373, :401-402, :223-224); MTP tokens
text_generator/generator.py:285-299 (plugin_params `num_speculative_tokens`); maxBatchSize is per DP group
(generator.py:1370-1373 `max_batch_size_per_dp`, which caps the warm-up's requests at :1417).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from moecfg.frameworks import values
from moecfg.sources.launch import Launch, Word
from moecfg.sources.textmap import Span

A2_DEVICES_PER_NODE = 8  # Atlas 800I A2: 8 NPUs; A3: 8 chips x 2 dies = 16 devices (deepseek_v3.2.md:169)


@dataclass(frozen=True, slots=True)
class Value:
    value: int | None
    spans: tuple[Span, ...] = ()
    text: str = ""  # how MindIE resolved it, for derivation texts


@dataclass(slots=True)
class Layout:
    backend: str | None
    world: Value
    multi_node: bool
    dp: Value
    tp: Value
    cp: Value
    moe_tp: Value
    moe_ep: Value
    max_batch: Value  # maxBatchSize, per DP group
    max_prefill: Value  # maxPrefillTokens
    spec: Value  # MTP speculative tokens
    role: str | None = None  # MindIE-Motor PD role: "prefill" | "decode" (None: a standard server, both phases)
    product: str | None = None
    product_how: str = ""
    flags: dict = field(default_factory=dict)  # key -> Word, as written

    def word(self, key: str) -> Word | None:
        return self.flags.get(key)


def settings(launch: Launch) -> dict[str, Word]:
    """`--key value` pairs of the synthesised command -> the value's Word."""
    argv, out = launch.argv, {}
    for i in range(1, len(argv) - 1, 2):
        flag = argv[i].value
        if flag is not None and flag.startswith("--"):
            out[flag[2:]] = argv[i + 1]
    return out


def as_int(word: Word | None) -> int | None:
    return values.integer(word.value) if word is not None else None


def _spans(*words) -> tuple[Span, ...]:
    return tuple(w.span for w in words if w is not None)


def _group(s: dict, key: str, default: Value) -> Value:
    """MindIE's group size: -1 or absent -> the default."""
    word = s.get(key)
    if word is None:
        return Value(default.value, default.spans, f"{key} absent: {default.text}")
    value = as_int(word)
    if value == -1:
        return Value(default.value, (word.span,) + default.spans, f"{key} -1: {default.text}")
    return Value(value, (word.span,), f"{key} {word.value}")


def world_size(s: dict, multi: bool) -> Value:
    """worldSize on one node; across nodes (multiNodesInferEnabled, or ScheduleConfig.distributedEnable of a
    Motor PD instance) the world is moe_tp x moe_ep when both are written (MindIE refuses any other product,
    parallel_info_manager.py:210-216), else unknown."""
    world = s.get("worldSize")
    if not multi:
        return Value(as_int(world), _spans(world), f"worldSize {world.value}" if world else "no worldSize")
    tp, ep = as_int(s.get("moe_tp")), as_int(s.get("moe_ep"))
    if tp and ep and tp > 0 and ep > 0:
        return Value(tp * ep, _spans(s["moe_tp"], s["moe_ep"]), f"multi-node: moe_tp {tp} x moe_ep {ep}")
    return Value(None, _spans(world), "multi-node: worldSize is per node, the node count is not in config.json")


def spec_tokens(word: Word | None) -> Value:
    """num_speculative_tokens of plugin_params (a JSON string); 0 without plugin_params."""
    if word is None:
        return Value(0, (), "no plugin_params: no MTP")
    try:
        data = values.load_json(word.value or "")
    except values.JsonValueError:
        return Value(None, (word.span,), "plugin_params is not JSON")
    n = values.integer(data.get("num_speculative_tokens", 0)) if isinstance(data, dict) else None
    if n is None or n < 0:
        return Value(None, (word.span,), "plugin_params num_speculative_tokens unreadable")
    return Value(n, (word.span,), f"plugin_params num_speculative_tokens {n}")


def product(s: dict, ctx) -> tuple[str | None, str]:
    if ctx.product in ("A2", "A3"):
        return ctx.product, ctx.product_source or "settings"
    hardware = s.get("hardware_type")  # MindIE-Motor user_config deploy_config: "800I_A2" | "800I_A3"
    if hardware is not None and (hardware.value or "").upper() in ("800I_A2", "800I_A3"):
        return hardware.value[-2:].upper(), f"deploy_config.hardware_type {hardware.value}"
    ids, ep = as_int(s.get("npuDeviceIds")), as_int(s.get("moe_ep"))
    # an Atlas 300I Duo server also lists 16 devices, but MindIE runs no EP strategy on 310P (moe_comm_strategy.py
    # :136-137, :163-164): only an EP deployment reads the count as A3
    if ids is not None and ids > A2_DEVICES_PER_NODE and ep is not None and ep > 1:
        return "A3", (f"npuDeviceIds lists {ids} devices on one node (an A2 node has {A2_DEVICES_PER_NODE} NPUs, an A3 "
                      "node 16 dies: docs/zh/user_guide/models/deepseek/deepseek_v3.2.md:169)")
    return None, ""


def read(launch: Launch, ctx) -> Layout:
    s = settings(launch)
    backend = s["backendType"].value if "backendType" in s else None
    multi = any(k in s and s[k].value == "true" for k in ("multiNodesInferEnabled", "distributedEnable"))
    world = world_size(s, multi)
    whole = Value(world.value, world.spans, f"the world size ({world.text})")
    one = Value(1, (), "1")
    lay = Layout(backend, world, multi, _group(s, "dp", one), _group(s, "tp", whole), _group(s, "cp", one),
                 _group(s, "moe_tp", whole), _group(s, "moe_ep", one),
                 _limit(s, "maxBatchSize"), _limit(s, "maxPrefillTokens"), spec_tokens(s.get("plugin_params")),
                 flags=s)
    lay.product, lay.product_how = product(s, ctx)
    lay.role = s["role"].value if "role" in s else None
    return lay


def _limit(s: dict, key: str) -> Value:
    word = s.get(key)
    value = as_int(word)
    return Value(value if value is not None and value > 0 else None, _spans(word),
                 f"{key} {word.value}" if word else f"{key} not in config.json")


def model_text(lay: Layout) -> Word | None:
    """The model as config.json names it: the weight path's last part is the checkpoint name
    (`/mnt/weights/DeepSeek-V3.2-w8a8-mtp-QuaRot`), else modelName."""
    return lay.word("modelWeightPath") or lay.word("modelName")



def env_file_label(lay: "Layout") -> str:
    """The env file the launch's environment was read from, as the user names it (`conf/mindie_env_a3.json`, a Motor
    deploy_config.mindie_env_path), else MindIE's default name."""
    import os

    word = lay.word("env-file")
    if word is None or not word.value:
        return "conf/mindie_env.json"
    parent, base = os.path.basename(os.path.dirname(word.value)), os.path.basename(word.value)
    return f"{parent}/{base}" if parent == "conf" else base
