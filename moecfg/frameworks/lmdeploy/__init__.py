"""LMDeploy (InternLM/lmdeploy) serving on Ascend through dlinfer (DeepLink-org/dlinfer): `lmdeploy serve api_server
MODEL --backend pytorch --device ascend --tp 16 --dp 2 --ep 32` (also `python -m lmdeploy serve api_server ...`).

Recognised: `lmdeploy serve api_server`, `python -m lmdeploy serve api_server`, the proxy (`lmdeploy serve proxy`,
`python -m lmdeploy.serve.proxy.proxy`) and the fire entry point `python -m lmdeploy.serve.openai.api_server`.
Derived: only api_server launches with `--device ascend` (calls.py: the dispatch_v2 / combine_v2 call dlinfer makes
per phase, LMDeploy's start-up checks in rules.py). The proxy runs no model; the fire entry point takes no engine
flags (its backend_config is a Python object); a launch without `--device ascend` runs on CUDA GPUs (DeepEP or
TurboMind), which moecfg does not derive for LMDeploy: each is recognised and reported as running no checked
collective, silently; its flags are still checked against the release's parser (argparse exits on a flag the
release does not define, lmdeploy/cli/serve.py).

Versions: the LMDeploy releases read, 0.12.1 (the first with expert parallelism on Ascend) .. 0.18.0 (releases.py,
flags.json). The release comes from the image tag, then `framework_versions.lmdeploy`, else the newest (MC040).
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import replace

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall, pick_version
from moecfg.frameworks.lmdeploy.releases import RELEASES, match
from moecfg.sources.launch import Launch

NAME = "lmdeploy"
VERSIONS = tuple(RELEASES)
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
# (words after the program, kind): the CLI's sub-commands and the modules run with `python -m`
_CLI = {("serve", "api_server"): "api_server", ("serve", "proxy"): "proxy"}
_MODULES = {"lmdeploy.serve.openai.api_server": "fire", "lmdeploy.serve.proxy.proxy": "proxy"}


def entry(launch: Launch) -> tuple[str, int] | None:
    """(kind, index of the first argument after the entry point) or None: api_server | proxy | fire."""
    words = launch.words()
    for i, w in enumerate(words):
        base = os.path.basename(w or "")
        if base == "lmdeploy" and tuple(words[i + 1:i + 3]) in _CLI:
            return _CLI[tuple(words[i + 1:i + 3])], i + 3
        if _PYTHON.match(base) and words[i + 1:i + 2] == ["-m"]:
            module = words[i + 2] if i + 2 < len(words) else None
            if module == "lmdeploy" and tuple(words[i + 3:i + 5]) in _CLI:
                return _CLI[tuple(words[i + 3:i + 5])], i + 5
            if module in _MODULES:
                return _MODULES[module], i + 3
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return entry(launch) is not None


_NOT_DERIVED = {
    "proxy": "LMDeploy's proxy routes requests to the API servers and runs no model",
    "fire": "`python -m lmdeploy.serve.openai.api_server` takes no engine flags (backend_config is a Python object): "
            "the engine it starts is not derived",
}


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks.lmdeploy import calls, cli

    version, how = pick_version(sys.modules[__name__], launch, ctx, match)
    out = Derivation(NAME, version)
    kind, start = entry(launch)
    if kind in _NOT_DERIVED:
        out.calls.append(OpCall("serve", "none", None, {}, why_none=_NOT_DERIVED[kind], quiet=True))
        return out
    notes: list[Note] = []
    flags = cli.read(launch.argv[start:], version, notes)
    # on every device: argparse refuses a flag the release does not define; with the release known, certainly
    out.notes.extend(replace(n, severity="error") if how and n.code == "MC022" else n for n in notes)
    given = flags.get("--device")
    if given is not None and given.value is None:  # `--device $DEVICE`: Ascend or not is unknown, nothing is derived
        out.notes.append(Note("MC023", "--device: the value is not known statically; LMDeploy's MC2 call is derived only "
                              "for --device ascend", given.span))
        return out
    device = flags.value("--device") or cli.defaults(version).get("--device")
    if device != "ascend":
        out.calls.append(OpCall("serve", "none", None, {}, why_none=f"--device {device}: LMDeploy on GPUs (CUDA graphs, "
                                "DeepEP) is recognised, not derived", quiet=True))
        return out
    # said only where the release changes the verdict: launches with expert parallelism (calls.derive)
    assumed = None if how else Note("MC040", f"{_unmatched(launch, ctx)}: derived as LMDeploy {version}, the newest "
                                    "release read (the release decides A3's op choice and the MC2 token capacity)",
                                    launch.span)
    calls.derive(launch, ctx, flags, RELEASES[version], version, out, assumed)
    return out


def _unmatched(launch: Launch, ctx: LaunchContext) -> str:
    from moecfg.frameworks import image_version

    given = image_version(launch.image) or ctx.version_for(NAME)
    if not given:
        return "LMDeploy version not given (image tag or `framework_versions: {lmdeploy: ...}` in .moecfg.yaml)"
    return f"LMDeploy {given} is older than 0.12.1, the first release with expert parallelism on Ascend, or not a " \
           "version"
