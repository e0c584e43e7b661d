"""The CANN rule sets as data (ascend-mc2-rules.md §9 timeline). One entry per readable release of the code.

Names: "8.5", "9.0", "9.1" (release tags), "latest" (upstream head), and code points read since, written out
in full: "9.1.0" (the 9.1.0 branch head), "9.1.0-beta.1/-beta.3/-beta.2" (community pre-releases) and
"master-2026-07-24" (cannmirror's master). A cann_version that names one of them exactly gets it; any other is mapped by
major.minor. Every entry was checked against the code at its commit (git diff of the op_host trees and
`git merge-base --is-ancestor` of the §9 rule commits); `moecfg rules --diff A B` lists what differs.
"""
from __future__ import annotations

import re

from moecfg.core.diagnostics import clip
from moecfg.core.record import replace

from moecfg.backends.ascend.shared.catalog import A2Rules, A3Hierarchy, A3Rules, RuleSet

_A3_ALGS_85 = ("", "fullmesh_v1", "fullmesh_v2")
_A3_ALGS_90 = ("", "fullmesh_v1", "fullmesh_v2", "hierarchy")

RULESETS = {
    "8.5": RuleSet(
        name="8.5", source="ops-transformer v8.5.0 (6ead121)",
        a2=A2Rules(ep_max_flat=256, moe_per_rank_max_flat=24, window_source="doc"),
        a3=A3Rules(comm_algs=_A3_ALGS_85, performance_info=False, fm2_ub_check=False,
                   fm2_rejects=("elastic", "special", "mask2d", "variable_bs", "tp2"),
                   comm_quant_zero_with_tp=True, window_error="HCCL_BUFFSIZE is too SMALL", context_rejects=None,
                   context_window_wraps=False),  # no context mode before 9.0
    ),
    "9.0": RuleSet(
        name="9.0", source="ops-transformer v9.0.0 (afe7214)",
        a2=A2Rules(ep_max_flat=384, ep_any_upto=8, bs_max_hier=512),
        a3=A3Rules(comm_algs=_A3_ALGS_90, fm2_rejects=("tp2",), hierarchy=A3Hierarchy(),
                   comm_quant_zero_with_tp=True,  # R90/R91 keep R85's TP block (CV2T L238-262)
                   context_rejects=(), context_window_wraps=False),  # R90 CWS L92-93, L130-133
    ),
    "9.1": RuleSet(
        name="9.1", source="ops-transformer v9.1.0.pre (121f37d)",
        a2=A2Rules(ep_max_flat=384, ep_any_upto=8, bs_max_hier=512, h_max_flat=10240, moe_max_flat=1024),
        a3=A3Rules(comm_algs=_A3_ALGS_90, fm2_rejects=("tp2",), hierarchy=A3Hierarchy(),
                   comm_quant_zero_with_tp=True),  # R90/R91 keep R85's TP block (CV2T L238-262)
    ),
    "latest": RuleSet(
        name="latest", source="ops-transformer master 2026-08-21 (5778144)",
        a2=A2Rules(ep_max_flat=384, ep_any_upto=8, bs_max_hier=512, h_max_flat=10240, moe_max_flat=1024,
                   tp_max=1, h_max_int32=5120),
        a3=A3Rules(comm_algs=_A3_ALGS_90, legacy_tp=False, tp_max=1, hierarchy=A3Hierarchy()),
    ),
}
# cannmirror/ops-transformer 9.1.0 branch head: v9.1.0.pre..3311e26 changes only exception dumps, the A5
# performance tiling and a kernel header (no dispatch/combine v1/v2, add_rms_norm or ffn op_host change)
RULESETS["9.1.0"] = replace(RULESETS["9.1"], name="9.1.0",
                            source="ops-transformer 9.1.0 branch head (3311e26, 2026-07-23): host checks as v9.1.0.pre")
# v9.1.0-beta.1 (f3bd274, 2026-05-09) has every 9.0 rule commit (a558b78 .. d594901) but not e74eca1 (A2 H 10240,
# moe 1024) nor c17bcdd; its context window is R90's (need + 1 MB <= ccl) and combine accepts hierarchy there;
# its tiling constants differ from v9.1.0.pre exactly as v9.0.0's do
RULESETS["9.1.0-beta.1"] = replace(RULESETS["9.0"], name="9.1.0-beta.1",
                                   source="ops-transformer v9.1.0-beta.1 (f3bd274, 2026-05-09): limits as v9.0.0")
# v9.1.0-beta.3 (4d67948, 2026-06-16) and v9.1.0-beta.2.pre (e046250, 2026-06-23) have c17bcdd and e74eca1 (the
# 9.1 limits) but not 7feca19 (TP removal); in context mode neither refuses hierarchy (the combine check came
# later), and beta.3 still has R90's window (need + 1 MB <= ccl), beta.2.pre already ccl - 1 MB (its CWS L132)
RULESETS["9.1.0-beta.3"] = replace(
    RULESETS["9.1"], name="9.1.0-beta.3", a3=replace(RULESETS["9.1"].a3, context_rejects=(), context_window_wraps=False),
    source="ops-transformer v9.1.0-beta.3 (4d67948, 2026-06-16): 9.1 limits, 9.0 context mode")
RULESETS["9.1.0-beta.2"] = replace(
    RULESETS["9.1"], name="9.1.0-beta.2", a3=replace(RULESETS["9.1"].a3, context_rejects=()),
    source="ops-transformer v9.1.0-beta.2.pre (e046250, 2026-06-23): 9.1 limits, hierarchy accepted in context mode")
ALIASES = {"9.1.0-beta.2.pre": "9.1.0-beta.2"}  # the tag's own spelling
# cannmirror master 25fb6b9 (2026-07-24): TP removed (7feca19), combine expert_scales optional (2a0d633),
# hierarchy refused in context mode by dispatch and combine; before b042695 (A2 INT32 x, 2026-07-29)
RULESETS["master-2026-07-24"] = replace(
    RULESETS["latest"], name="master-2026-07-24", a2=replace(RULESETS["latest"].a2, h_max_int32=None),
    source="ops-transformer master 2026-07-24 (cannmirror 25fb6b9): latest without A2 INT32 x")
ORDER = ("8.5", "9.0", "9.1")  # released lines, oldest first; "latest" is upstream head
OLDEST, NEWEST_RELEASE = (8, 5), (9, 1)
# what each rule set is, oldest code first (for `moecfg rules --ruleset`)
TIMELINE = ("8.5", "9.0", "9.1.0-beta.1", "9.1.0-beta.3", "9.1.0-beta.2", "9.1", "9.1.0", "master-2026-07-24",
            "latest")


def resolve(version: str | None):
    """(rule set name, warning or None) for a cann_version string; None = unparseable."""
    if version is None:
        return "latest", None
    text = version.strip().lower()
    if text in ("latest", "master", "head"):
        return "latest", None
    exact = text[1:] if text.startswith("v") else text
    exact = ALIASES.get(exact, exact)
    if exact in RULESETS:
        return exact, None
    m = re.match(r"^v?([0-9]{1,6})\.([0-9]{1,6})", text)  # ASCII digits, bounded (int() of 5000 digits raises)
    if not m:
        return None, None
    major_minor = (int(m.group(1)), int(m.group(2)))
    if major_minor < OLDEST:
        return "8.5", (f"CANN {clip(version)} is older than the oldest rule set (8.5); checking with the 8.5 rules, "
                       "which may accept configs your release rejects")
    if major_minor > NEWEST_RELEASE:
        return "latest", (f"CANN {clip(version)} is newer than any rule set; checking with `latest` "
                          "(upstream ops-transformer of 2026-08-21)")
    name = f"{major_minor[0]}.{major_minor[1]}"
    if name in RULESETS:
        return name, None
    older = [r for r in ORDER if tuple(map(int, r.split("."))) <= major_minor][-1]
    return older, f"CANN {clip(version)} has no rule set of its own; checking with the nearest older one ({older})"
