"""additional_config keys the pinned vllm-ascend release ignores (MC022): keys other releases read whose quoted
name appears nowhere in this release's vllm_ascend/ package (config_keys.py, generated per tag)."""
from __future__ import annotations

from moecfg.frameworks import Note
from moecfg.frameworks.vllm_ascend.cli import ServeArgs
from moecfg.frameworks.vllm_ascend.releases import Release


def notes(args: ServeArgs, rel: Release) -> list[Note]:
    from moecfg.frameworks.vllm_ascend.config_keys import CONFIG_KEYS

    entry = CONFIG_KEYS.get(rel.key)
    extra = args.json.get("--additional-config")
    if entry is None or extra is None or not isinstance(extra.value, dict):
        return []
    out = []
    for key in extra.value:
        if key in entry["unread"]:
            readers = [k for k, e in CONFIG_KEYS.items() if key in e["keys"]]
            span = args.config("--additional-config", key).spans
            out.append(Note("MC022", f"additional_config.{key}: vllm-ascend {rel.key} ({rel.ref}) does not read this "
                            f"key (named nowhere in its vllm_ascend/ package), so it has no effect; releases that read "
                            f"it: {', '.join(readers)}", span[0] if span else args.start, "warning"))
    return out
