"""rLLM's launch -> verl's: the overrides a verl entry point would get, derived by trainers/verl.

rllm-org/rllm@9beb6e0:
- `model_engine=megatron` selects verl's Megatron actor and ref (verl==0.8.0 ppo_trainer.yaml: `actor@actor_rollout_ref.
  actor: ${model_engine}_actor`, actor/megatron_actor.yaml:16 and ref/megatron_ref.yaml:13 `strategy: megatron`;
  verl's own ppo_megatron_trainer.yaml is ppo_trainer with `override model_engine: megatron`): read as
  actor_rollout_ref.{actor,ref}.strategy=megatron at that word; with `rllm/backend=verl` (a group only unified.yaml's
  defaults have, unified.yaml:6-9) and no model_engine, verl 0.8.0's own (ppo_trainer.yaml:10 `model_engine: dp`,
  actor/dp_actor.yaml:26 `strategy: fsdp`);
- verl's release: the settings' `framework_versions: {verl: ...}`, else rLLM's pin (pyproject.toml:80, verl==0.8.0);
  a release moecfg has not read leaves every key the launch does not write unknown (verl 0.8.0's
  actor_rollout_ref.rollout.name is `???`, rollout/rollout.yaml:5, and no rLLM config sets it: a launch must);
- the script's own config (rLLM's unified.yaml or agent_ppo_trainer[_megatron].yaml) adds no engine key moecfg reads
  (rllm/backend/verl.yaml:13-27: rollout mode and agent settings only).
"""
from __future__ import annotations

import dataclasses

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.frameworks.flags import known_value
from moecfg.sources.launch import Launch, Word
from moecfg.trainers.rllm import releases


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation, start: int) -> None:
    from moecfg.frameworks import Note
    from moecfg.trainers.verl import calls as verl
    from moecfg.trainers.verl import releases as verl_releases

    words: list[Word] = list(launch.argv[:start])
    engine = None
    for w in launch.argv[start:]:
        words.append(w)
        if w.value and w.value.lstrip("+").startswith("model_engine="):
            engine = known_value(w.value.split("=", 1)[1])
            if engine == "megatron":
                words += [Word(f"actor_rollout_ref.{who}.strategy=megatron", w.span) for who in ("actor", "ref")]
    given = ctx.version_for("verl")
    unified = next((w for w in launch.argv[start:] if (w.value or "").startswith("rllm/backend=")), None)
    if engine is None and unified is not None and not given:  # unified.yaml's verl: model_engine dp, FSDP workers
        words += [Word(f"actor_rollout_ref.{who}.strategy=fsdp", unified.span) for who in ("actor", "ref")]
    if verl_releases.match(given or releases.VERL_PIN) is None:
        words += _not_known(words, launch)
    translated = dataclasses.replace(launch, argv=tuple(words))
    if not given:
        ctx = dataclasses.replace(ctx, framework_versions=ctx.framework_versions + (("verl", releases.VERL_PIN),))
        out.notes.append(Note("MC040", f"verl version not given (`framework_versions: {{verl: ...}}`): read as verl "
                              f"{releases.VERL_PIN}, rLLM's pin ({releases.RLLM} pyproject.toml:80)", launch.span))
    mark, own = len(out.notes), out.version
    verl.derive_phases(translated, ctx, out, start, "ppo_megatron_trainer" if engine == "megatron" else None)
    out.version = f"{own} (verl {given or releases.VERL_PIN})"
    if not given:  # the release is rLLM's pin, not the settings'
        out.notes[mark:] = [dataclasses.replace(n, message=n.message.replace(
            f"verl {releases.VERL_PIN} (settings)", f"verl {releases.VERL_PIN} (rLLM's pin)")) for n in out.notes[mark:]]


_DISPATCHER = "actor_rollout_ref.{}.megatron.override_transformer_config.moe_token_dispatcher_type"


def _not_known(words: list[Word], launch: Launch) -> list[Word]:
    """In a verl release moecfg has not read, the dispatcher the launch does not write is that release's (verl 0.8.0
    sets alltoall in verl/models/mcore/config_converter.py:91, the bridge's provider its own): an unknown word, not
    Megatron's default."""
    written = {(w.value or "").lstrip("+").split("=", 1)[0] for w in words}
    return [Word(None, launch.span, exact=False, pattern=_DISPATCHER.format(who) + "=${verl_release_default}")
            for who in ("actor",) if _DISPATCHER.format(who) not in written]  # the ref's follows the actor's
