"""`moecfg plan FILE` for a moecfg document (`kind: ascend`, dispatch_combine_v2): the smallest HCCL_BUFFSIZE for
its bs and the largest bs for its HCCL_BUFFSIZE, in its own keys, by the planner's solver (plan/solver.py: the
formulas, then every answer and the value past it judged by the rules)."""
from __future__ import annotations

from moecfg.plan.answers import Knob, LaunchPlan

SOLVED = ("bs", "ep_world_size")


def plan_documents(text: str, cann: str | None, codes) -> list[LaunchPlan]:
    """One plan per document the solver takes (others are left out: the launch planner does launches)."""
    from moecfg.sources.manifests.yaml_source import YamlProblem, parse_stream

    try:
        docs = parse_stream(text)
    except YamlProblem:
        return []
    return [p for p in (_plan(doc, cann, codes) for doc in docs) if p is not None]


def _plan(doc, cann, codes) -> LaunchPlan | None:
    from moecfg.plan import solver
    from moecfg.plan.problem import PLAN_OP, PlanError, build

    data = doc.data
    if not isinstance(data, dict) or data.get("kind", "ascend") != "ascend" or data.get("op", PLAN_OP) != PLAN_OP:
        return None
    bs, ep, env = data.get("bs"), data.get("ep_world_size"), data.get("env") or {}
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (bs, ep)) or "api" in data:
        return None
    base = {k: v for k, v in data.items() if k not in SOLVED}
    written = env.get("HCCL_BUFFSIZE") if isinstance(env, dict) else None
    base["env"] = {k: v for k, v in env.items() if k != "HCCL_BUFFSIZE"} if isinstance(env, dict) else {}
    try:
        problem = build(base, cann)
        smallest = solver.min_buffer(problem, ep, bs)
        have = int(written) if str(written or "").isdigit() else 200  # HCCL's default when unset
        largest = solver.max_bs(problem, ep, have)
    except (PlanError, ValueError, TypeError):
        return None
    judged = problem.verdict(ep, bs, have)
    failing = sorted({d.code for d in judged.diagnostics if d.code in codes})
    plan = LaunchPlan(doc.start.line, "moecfg", f"document {doc.index}", "ascend", not failing, failing,
                      style="document", document=doc.index)
    plan.buffer = Knob("env.HCCL_BUFFSIZE", None if written is None else str(written), smallest.buffer_mb,
                       smallest.next_value if smallest.next_verdict and not smallest.next_verdict.ok else None)
    plan.batches = [Knob("bs", str(bs), largest.bs, largest.next_value)]
    return plan
