"""The orchestration of a check, above frameworks and backends: the engine (walk, read, judge each file),
launch judging, the calculator, per-file policy and guard, and the settings (moecfg.toml / pyproject)."""
