"""MindIE's atb backend (the shipped default `backendType: atb`): the HCCL buffers of its MoE groups, the validator
that refuses some at start-up, and the EP buffer it raises on its own.

Ascend/MindIE-LLM@8b4871a examples/atb_models/atb_llm/ (ATB):
- defaults conf/config.json:12-19 (`llm.parallel_options`: hccl_buffer 128, hccl_moe_ep_buffer 512,
  hccl_moe_tp_buffer 64); ModelConfig's `models` section of the served model type is merged into `llm`
  (models/__init__.py:70-82, utils/configuration_utils.py:91-101; deepseek_v3 / deepseek_v2 / deepseekv3 are
  renamed deepseekv2, :71-73);
- the validators: llm.parallel_options hccl_buffer >= 1, hccl_moe_ep_buffer >= 512, hccl_moe_tp_buffer >= 64
  (models/base/router.py:401-406); for DeepSeek models.deepseekv2.parallel_options.hccl_moe_ep_buffer >=
  max(512, HCCL_BUFFSIZE) (models/deepseekv2/router_deepseekv2.py:35-48); a refusal is `RuntimeError: Validation
  failed` (utils/configuration_utils.py:113-120) before the model loads;
- ep_level 2 (dynamic EP): calc_moe_buffer_size = ceil(ceil(maxBatchSize / world) x hidden x (experts + redundant) x
  4 B / MiB) + 1 MB for moe_ep (x moe_tp for moe_tp); a smaller configured buffer is raised to it with only a
  warning in the log (models/deepseekv2/flash_causal_deepseekv2.py:1047-1061, :1358-1367; total_batch_size =
  max_batch_size :107-108; ep_level default 1, conf/config.json:58).
"""
from __future__ import annotations

from moecfg.frameworks import Note, values
from moecfg.frameworks.mindie import rules
from moecfg.frameworks.mindie.layout import Layout

DEFAULTS = {"hccl_buffer": 128, "hccl_moe_ep_buffer": 512, "hccl_moe_tp_buffer": 64}  # ATB conf/config.json:16-18
LOWEST = {"hccl_buffer": 1, "hccl_moe_ep_buffer": 512, "hccl_moe_tp_buffer": 64}  # router.py:404-406
DEEPSEEK = ("deepseekv2", "deepseek_v3", "deepseek_v2", "deepseekv3")
MIB = 1 << 20


def _raised(section: str, name: str, floor: int, word):
    """MC996's fix: the value in config.json raised to atb's floor."""
    from moecfg.core.fixes import Suggestion

    return Suggestion(("models", section, "parallel_options", name), f'"{name}"', floor, spans=(word.span,),
                      old=word.value)


def sections(lay: Layout) -> list[str]:
    found = []
    for key in lay.flags:
        parts = key.split(".")
        if parts[0] == "models" and len(parts) > 2 and parts[1] not in found:
            found.append(parts[1])
    return found


def applicable(lay: Layout, dims) -> str | None:
    """The `models` section merged into llm: the only one written, or the DeepSeek one for a DeepSeek model."""
    names = sections(lay)
    if len(names) == 1:
        return names[0]
    if dims is not None and dims.is_family("deepseek"):
        return next((n for n in names if n in DEEPSEEK), None)
    return None


def buffers(lay: Layout, section: str | None, dims, env_buff: int | None) -> tuple[dict, list[Note]]:
    """{name: (MB, how)} as atb resolves them, and the MC996 refusals."""
    out, notes = {}, []
    for name, default in DEFAULTS.items():
        word = lay.word(f"models.{section}.parallel_options.{name}") if section else None
        if word is None:
            out[name] = (default, f"{name} {default} MB (atb_llm conf/config.json default)")
            continue
        mb = values.integer(word.value)
        floor, why = LOWEST[name], f"llm.parallel_options validator (router.py:{404 + list(DEFAULTS).index(name)})"
        if name == "hccl_moe_ep_buffer" and section in DEEPSEEK and env_buff is not None and env_buff > floor:
            floor, why = env_buff, f"max(512, HCCL_BUFFSIZE {env_buff}) (router_deepseekv2.py:35-48)"
        if mb is None or mb < floor:
            notes.append(Note(rules.ATB_BUFFER_REFUSED.code, f"models.{section}.parallel_options.{name} = "
                              f"{word.value}: atb's validator needs an integer >= {floor} ({why}) and stops "
                              f"mindie_llm_server with 'RuntimeError: Validation failed' before the model loads; "
                              f"set \"{name}\": {floor} or more in models.{section}.parallel_options", word.span,
                              fix=_raised(section, name, floor, word) if mb is not None else None))
            mb = None
        out[name] = (mb, f"models.{section}.parallel_options.{name} {word.value} MB")
    return out, notes


def raised(lay: Layout, section: str | None, dims, bufs: dict) -> list[Note]:
    """ep_level 2: the MoE buffers atb raises to calc_moe_buffer_size (a warning in its log only)."""
    level = lay.word(f"models.{section}.ep_level") if section else None
    world, batch = lay.world.value, lay.max_batch.value
    if level is None or values.integer(level.value) != 2 or dims is None or not world or not batch:
        return []
    if not dims.is_family("deepseek") or lay.moe_ep.value in (None, 1):
        return []
    red = values.integer(getattr(lay.word(f"models.{section}.eplb.num_redundant_experts"), "value", 0)) or 0
    per = -(-batch // world)
    need_ep = -(-(per * dims.hidden * (dims.num_experts + red) * 4) // MIB) + 1
    need_tp = -(-(per * dims.hidden * (lay.moe_tp.value or 1) * 4) // MIB) + 1
    notes = []
    for name, group, need, what in (
            ("hccl_moe_ep_buffer", "moe_ep", need_ep, f"(experts {dims.num_experts} + redundant {red})"),
            ("hccl_moe_tp_buffer", "moe_tp", need_tp, f"moe_tp {lay.moe_tp.value}")):
        mb = bufs[name][0]
        if mb is not None and mb < need:
            bufs[name] = (need, f"{name} raised by atb from {mb} to {need} MB (calc_moe_buffer_size)")
            notes.append(Note(rules.ATB_BUFFER_RAISED.code, f"ep_level 2: atb needs {name} >= ceil(ceil(maxBatchSize "
                              f"{batch} / world {world}) x hidden {dims.hidden} x {what} x 4 B / MiB) + 1 = {need} MB "
                              f"and raises the configured {mb} MB to it with only a warning in its log "
                              f"(flash_causal_deepseekv2.py:1047-1061, :1358-1367): each rank's {group} "
                              f"communicator takes 2 x {need} MB; set \"{name}\": {need} to say so", level.span))
    return notes
