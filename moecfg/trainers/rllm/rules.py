"""rLLM launch rules: none of its own. rLLM hands verl's keys to verl unchanged (its `rllm.*` keys drive the agent
loop and remote runtimes, no engine), so what refuses a launch is verl's code: trainers/verl/rules.py (MC709-MC711)
speaks for it."""
from __future__ import annotations

ERROR_LABELS: dict[str, str] = {}
