"""`moecfg plan FILE`: for each launch of a file, the smallest buffer for the batch it configures and the largest
batch for the buffer it sets, in the launch's own knobs (HCCL_BUFFSIZE, SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK,
--max-num-seqs, --cuda-graph-max-bs, --max-running-requests), with the device memory left (docs/fix.md).

No formula is inverted here: the launch itself is re-derived with one knob changed (its env entry or flag word
replaced, nothing else) and judged by the same rules as `moecfg check`; a binary search finds the boundary (the
window grows with the batch), and the value past it is judged too, so a boundary that is not one is never printed.
"""
from __future__ import annotations

from dataclasses import replace

from moecfg.plan.answers import FilePlan, Knob, LaunchPlan, NotPlanned

# the knob that sizes the buffer, by kind and framework: the first one the launch sets, else the first
BUFFER_KNOBS = {"ascend": ("DEEPEP_HCCL_BUFFSIZE", "HCCL_BUFFSIZE"),
                "deepep": ("SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
                           "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK")}
BUFFER_LIMIT = {"HCCL_BUFFSIZE": 65535, "DEEPEP_HCCL_BUFFSIZE": 65535,  # a uint16 of MB for the ops that parse it
                "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK": 1024,  # DeepEP's low-latency limit
                "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": 1024}
BATCH_FLAGS = {"vllm-ascend": ("--max-num-seqs",), "vllm": ("--max-num-seqs",), "vllm-mindspore": ("--max-num-seqs",),
               "sglang": ("--cuda-graph-max-bs", "--max-running-requests"), "lmdeploy": ("--max-batch-size",),
               "xllm": ("--max_seqs_per_batch",)}
MAX_LAUNCHES = 32  # launches planned per file (each is re-derived about a hundred times)
BATCH_MAX = 1 << 16  # a batch flag searched up to here; a launch that passes there is not limited by its buffer


def sizing_codes() -> frozenset:
    """The sizing findings: the rules that carry a fix (tag autofix), all a buffer against a batch."""
    from moecfg.core.registry import all_rules

    return frozenset(r.code for r in all_rules() if "autofix" in r.tags)


class Judge:
    """Re-derives one launch with a knob changed and says whether any sizing rule fires."""

    def __init__(self, name: str, options, policy):
        from moecfg.checking.launch import context

        self.name, self.options, self.ctx, self.codes = name, options, context(policy, options), sizing_codes()

    def results(self, launch) -> list:
        from moecfg.checking.launch import lint_launch_file
        from moecfg.sources.budget import per_file
        from moecfg.sources.launch import LaunchFile

        with per_file(keep=True):
            return lint_launch_file(LaunchFile([launch]), self.name, self.ctx, self.options)

    def failing(self, results) -> list[str]:
        return sorted({d.code for r in results for d in r.diagnostics if d.code in self.codes})

    def passes(self, launch) -> bool:
        return not self.failing(self.results(launch))


def with_env(launch, name: str, value: int):
    from moecfg.sources.launch import EnvEntry

    entry = launch.env.get(name)
    return replace(launch, env={**launch.env, name: EnvEntry(name, str(value), entry.span if entry else launch.span)})


def with_flag(launch, flag: str, value: int):
    """The launch with `flag`'s value replaced (`--flag N` or `--flag=N`), or the flag added at the end."""
    argv = list(launch.argv)
    for i, w in enumerate(argv):
        if w.value == flag and i + 1 < len(argv):
            argv[i + 1] = replace(argv[i + 1], value=str(value))
            return replace(launch, argv=tuple(argv))
        if w.value and w.value.startswith(flag + "="):
            argv[i] = replace(w, value=f"{flag}={value}")
            return replace(launch, argv=tuple(argv))
    last = argv[-1]
    return replace(launch, argv=(*argv, replace(last, value=flag), replace(last, value=str(value))))


def flag_value(launch, flag: str) -> str | None:
    words = launch.words()
    for i, w in enumerate(words):
        if w == flag and i + 1 < len(words):
            return words[i + 1]
        if w and w.startswith(flag + "="):
            return w.split("=", 1)[1]
    return None


def _first_passing(ok, lo: int, hi: int) -> int | None:
    """The smallest v in [lo, hi] with ok(v), ok monotone (False ... True); None when ok(hi) is False."""
    if not ok(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
    return lo


def _last_passing(ok, lo: int, hi: int) -> int | None:
    """The largest v in [lo, hi] with ok(v), ok monotone (True ... False); None when ok(lo) is False."""
    if not ok(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


def smallest_buffer(judge: Judge, launch, knob: str) -> Knob:
    entry = launch.env.get(knob)
    limit = BUFFER_LIMIT.get(knob, 65535)
    found = _first_passing(lambda v: judge.passes(with_env(launch, knob, v)), 1, limit)
    if found is None:
        return Knob(knob, entry.value if entry else None, None, note=f"no value up to {limit} holds this batch")
    return Knob(knob, entry.value if entry else None, found, found - 1 if found > 1 else None)


def largest_batch(judge: Judge, launch, flag: str) -> Knob:
    """From the value written (else 1) up by doubling to the first batch that fails, then a binary search between
    the last that passed and it: the boundary nearest the launch (vllm-ascend leaves MC2 for all-to-all above the
    MC2 capacity, so a far larger batch may pass again; that is another op, not this buffer's limit)."""
    written = flag_value(launch, flag)
    start = int(written) if written and written.isdigit() and 0 < int(written) <= BATCH_MAX else 1

    # findings that stay with the smallest batch come from other flags (SGLang: --max-running-requests while
    # --cuda-graph-max-bs is searched): this flag's limit is where findings beyond those begin
    others = set(judge.failing(judge.results(with_flag(launch, flag, 1))))

    def ok(v: int) -> bool:
        return not set(judge.failing(judge.results(with_flag(launch, flag, v)))) - others

    if ok(start):
        lo, hi = start, start * 2
        while hi <= BATCH_MAX and ok(hi):
            lo, hi = hi, hi * 2
        if hi > BATCH_MAX:
            return Knob(flag, written, None, note=f"any: not limited by the buffer up to {BATCH_MAX} (other flags "
                                                  "cap the batch the op sees)", unlimited=True)
        found = _last_passing(ok, lo, hi - 1)
    else:
        found = _last_passing(ok, 1, start - 1) if start > 1 else None
    if found is None:
        return Knob(flag, written, None, note="even 1 does not fit this buffer")
    return Knob(flag, written, found, found + 1)


def plan_file(path: str, options, settings) -> FilePlan:
    """One LaunchPlan per recognised launch with an expert-parallel op call (the first MAX_LAUNCHES), each judged
    as written by `moecfg check` itself (run once on the file); every other launch named with why."""
    from moecfg import frameworks
    from moecfg.checking.engine import check_entry, vocabulary
    from moecfg.checking.launch import _with_hints
    from moecfg.sources.documents import classify as D
    from moecfg.sources.budget import per_file
    from moecfg.sources.files import discover, read

    import os

    if os.path.isdir(path):
        raise ValueError("plan reads one launch file, not a folder (`moecfg check --diff FOLDER` shows every fix)")
    [entry] = discover([path])
    policy = settings.for_file(path) if settings is not None else None
    with per_file(keep=True):
        _, items = D.classify_bytes(read(entry), path, vocabulary(), entry.root)
    judge = Judge(path, options, policy)
    checked = CheckedFile(check_entry(entry, options, settings))  # the verdicts: check's own, once
    out = FilePlan()
    if any(isinstance(item, D.Owned) for item in items):  # moecfg documents: the solver, in their own keys
        from moecfg.plan.document import plan_documents

        for plan in plan_documents(read(entry).decode("utf-8", "replace"), judge.options.cann, judge.codes):
            checked.judge(plan, checked.of_document(plan.document), judge.codes)
            out.plans.append(plan)
    for item in items:
        launches = item.launch_file.launches if isinstance(item, D.Launches) else ()
        recognised = [x for x in launches if frameworks.recognise(x, _with_hints(judge.ctx, x))]  # check reads these
        for ordinal, launch in enumerate(recognised):  # check's `launch.index`: two launches may share a line
            at = (launch.span.line, ordinal)
            if len(out.plans) >= MAX_LAUNCHES:
                out.more += 1
                continue
            planned = _plan_launch(judge, launch)
            for plan in planned:
                checked.judge(plan, checked.of_launch(*at), judge.codes)
            out.plans += planned
            if not planned:
                out.not_planned.append(checked.not_planned(at, judge.results(launch)))
    out.not_planned += [NotPlanned(u.line, u.launcher, f"seen, not read: {u.reason}") for u in checked.unread]
    out.elsewhere = checked.rest()
    return out


class CheckedFile:
    """`moecfg check`'s outcome on the file, taken launch by launch (its line and ordinal) or document by index;
    what no plan took is the file's errors elsewhere (launches past the cap, file-level findings)."""

    WHY = ("MC023", "MC042", "MC041")  # value not known statically, launch unresolved, no expert-parallel op

    def __init__(self, checked):
        self.results, self.unread, self.taken = checked.results, checked.unread, set()

    def _take(self, keep) -> list:
        found = [(i, r) for i, r in enumerate(self.results) if keep(r)]
        self.taken.update(i for i, _ in found)
        return [r for _, r in found]

    def of_launch(self, line: int, ordinal: int) -> list:
        at = (line, ordinal)
        return self._take(lambda r: r.launch is not None and (r.launch.get("line"), r.launch.get("index")) == at)

    def of_document(self, index) -> list:
        return self._take(lambda r: r.launch is None and r.document == index)

    @staticmethod
    def errors(results) -> list[str]:
        from moecfg.core.diagnostics import ERROR

        return sorted({d.code for r in results for d in r.diagnostics if d.severity == ERROR})

    def judge(self, plan: LaunchPlan, results, codes) -> None:
        plan.failing = self.errors(results)
        plan.ok, plan.unsized = not plan.failing, [c for c in plan.failing if c not in codes]

    def not_planned(self, at: tuple[int, int], derived) -> NotPlanned:
        results = self.of_launch(*at)
        about = next((r.launch for r in results if r.launch), None) or next((r.launch for r in derived if r.launch), {})
        notes = [d for r in results for d in r.diagnostics if d.code in self.WHY]
        notes.sort(key=lambda d: self.WHY.index(d.code))
        kinds = sorted({r.kind for r in derived if r.kind})
        why = (f"{notes[0].code}: {notes[0].message}" if notes else
               f"its op calls ({', '.join(kinds)}) have no buffer knob plan sizes" if kinds else
               "no expert-parallel op call derived")
        return NotPlanned(at[0], about.get("framework", ""), why, self.errors(results))

    def rest(self) -> list[str]:
        return self.errors(r for i, r in enumerate(self.results) if i not in self.taken)


def _plan_launch(judge: Judge, launch) -> list[LaunchPlan]:
    results = [r for r in judge.results(launch) if r.kind in BUFFER_KNOBS]
    if not results:
        return []
    r = results[0]
    about = r.launch or {}
    plan = LaunchPlan(launch.span.line, about.get("framework", ""), about.get("role", ""), r.kind,
                      not judge.failing(results), judge.failing(results))
    names = BUFFER_KNOBS[r.kind]
    knob = next((n for n in names if n in launch.env), names[-1])
    if r.kind == "deepep" and plan.framework != "sglang":
        knob = None  # the DeepEP buffer of other engines is not sized by one variable moecfg knows
    unknown = None
    if knob:
        plan.buffer = smallest_buffer(judge, launch, knob)
        entry = launch.env.get(knob)
        if entry is not None and entry.value is None:  # `HCCL_BUFFSIZE=$BUF`: set, to a value not known
            plan.buffer.unknown, unknown = True, knob
        at = with_env(launch, knob, plan.buffer.answer) if plan.buffer.answer else launch
        budget = next((x.derived.get("memory_budget") for x in judge.results(at) if x.derived.get("memory_budget")),
                      None)
        if budget:
            plan.headroom_bytes, plan.device = budget.get("headroom_bytes"), budget.get("device_memory", "")
    flags = BATCH_FLAGS.get(plan.framework, ())
    if unknown:  # no batch is judged against a buffer not known: said, not searched
        plan.batches = [Knob(f, flag_value(launch, f), None, note=f"{unknown} is not known statically") for f in flags]
    else:
        plan.batches = [largest_batch(judge, launch, f) for f in flags]
    return [plan]
