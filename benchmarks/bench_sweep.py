"""Time a 10,000-point sweep (the pure formulas, as `moecfg sweep` runs them) and one exact plan solve, for
`--kind ascend` (HCCL_BUFFSIZE vs bs) and `--kind deepep` (low-latency RDMA buffer vs tokens per rank).

    python benchmarks/bench_sweep.py
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # run from the checkout

from moecfg.plan import deepep_problem, deepep_solver, deepep_sweep, solver, sweep  # noqa: E402
from moecfg.plan.problem import build  # noqa: E402


def main() -> None:
    p = build({"product": "A3", "model": "deepseek-v3", "quant_mode": 2})
    xs = list(range(1, 1251))  # 1250 bs values x 4 comm_algs x 2 rule sets = 10,000 points
    t = time.perf_counter()
    result = sweep.run(p, "bs", xs, 32, ["", "fullmesh_v1", "fullmesh_v2", "hierarchy"], ["9.0", "latest"])
    sweep_s = time.perf_counter() - t
    points = sum(len(s.required_bytes) for s in result.series)
    t = time.perf_counter()
    ans = solver.max_bs(p, 32, 4096)
    plan_s = time.perf_counter() - t
    print(f"sweep: {points} configurations in {sweep_s:.3f} s ({sweep_s / points * 1e6:.1f} us each)")
    print(f"plan: largest bs for 4096 MB on EP 32 = {ans.bs} (engine-checked) in {plan_s * 1e3:.1f} ms")
    deepep()


def deepep() -> None:
    p = deepep_problem.build({"mode": "low_latency", "model": "deepseek-v3", "dtype": "fp8"})
    xs = list(range(1, 10001))  # 10,000 values of num_max_dispatch_tokens_per_rank
    t = time.perf_counter()
    result = deepep_sweep.run(p, deepep_problem.TOKENS, xs, 16)
    sweep_s = time.perf_counter() - t
    points = sum(len(s.required_bytes) for s in result.series)
    t = time.perf_counter()
    ans = deepep_solver.max_tokens(p, 16, 2 << 30)
    plan_s = time.perf_counter() - t
    print(f"deepep sweep: {points} configurations in {sweep_s:.3f} s ({sweep_s / points * 1e6:.1f} us each)")
    print(f"deepep plan: most tokens per rank for a 2 GiB RDMA buffer on 16 ranks = {ans.tokens} (engine-checked) "
          f"in {plan_s * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
