"""sources/manifests/kubernetes.py, compose.py and commands.py through readers.read_yaml_document: Kubernetes,
compose, YAML command configs, templates, and what is not a launch file."""
from __future__ import annotations

from reader_helpers import after, at, pos, read_yaml, word, words

from moecfg.sources.readers import template_problem

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dsr1-decode
spec:
  template:
    spec:
      nodeSelector:
        accelerator: huawei-Ascend910_9391
      containers:
        - name: decode
          image: quay.io/ascend/vllm-ascend:v0.13.0
          env:
            - name: HCCL_BUFFSIZE
              value: "1024"
            - name: POD_IP
              valueFrom:
                fieldRef: {fieldPath: status.podIP}
            - name: MODEL
              value: /models/$(SUB)/dsr1
            - name: SUB
              value: x
          command: ["/bin/bash", "-c"]
          args:
            - |
              export SEQS=16
              exec vllm serve $MODEL \\
                --max-num-seqs $SEQS --host $(POD_IP) \\
                --additional-config '{"enable_mc2_hierarchy_comm": true}'
          resources:
            limits:
              huawei.com/ascend-1980: 16
"""


def test_k8s_bash_c_block_scalar_positions_are_exact():
    (lf,) = read_yaml(DEPLOYMENT)
    (launch,) = lf.launches
    assert (launch.context, launch.image, launch.container) == ("k8s", "quay.io/ascend/vllm-ascend:v0.13.0",
                                                                 "decode")
    assert words(launch)[:2] == ["vllm", "serve"]
    assert pos(word(launch, "vllm").span) == (27, 20, 27, 24)  # inside the `|` block of a bash -c string
    flag = word(launch, "--max-num-seqs")
    assert (pos(flag.span), flag.exact) == ((28, 17, 28, 31), True)
    seqs = after(launch, "--max-num-seqs")
    assert (seqs.value, seqs.exact, pos(seqs.span)) == ("16", False, (28, 32, 28, 37))  # "$SEQS"
    config = after(launch, "--additional-config")
    assert at(DEPLOYMENT, config.span) == "'{\"enable_mc2_hierarchy_comm\": true}'" and config.exact


def test_k8s_env_valuefrom_and_dollar_paren_references():
    (lf,) = read_yaml(DEPLOYMENT)
    launch = lf.launches[0]
    env = launch.env
    assert (env["HCCL_BUFFSIZE"].value, pos(env["HCCL_BUFFSIZE"].span)) == ("1024", (15, 22, 15, 28))
    assert env["POD_IP"].value is None
    # `$(SUB)` is defined only after MODEL: Kubernetes leaves it as written
    assert env["MODEL"].value == "/models/$(SUB)/dsr1"
    assert after(launch, "--host").value is None  # $(POD_IP) -> ${POD_IP} for the shell: unknown
    assert [(p.code, pos(p.span)) for p in lf.problems] == [("MC023", (17, 15, 17, 24))]
    assert "POD_IP" in lf.problems[0].message and "fieldRef" in lf.problems[0].message


def test_k8s_hints_name_resources_and_soc_with_positions():
    (lf,) = read_yaml(DEPLOYMENT)
    hints = dict(lf.launches[0].hints)
    assert pos(hints["huawei.com/ascend-1980"]) == (32, 15, 32, 37)
    assert pos(hints["Ascend910_9391"]) == (9, 29, 9, 43)  # the SoC name inside "huawei-Ascend910_9391"


def test_k8s_list_form_command_expands_dollar_paren_from_env():
    text = """\
apiVersion: batch/v1
kind: CronJob
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - name: bench
              image: vllm/vllm-openai:v0.11.0
              env: [{name: TP, value: "8"}]
              command: ["vllm", "serve", 'm', "--tensor-parallel-size", "$(TP)", "$(UNSET)", "$$(TP)"]
"""
    (lf,) = read_yaml(text)
    launch = lf.launches[0]
    assert words(launch) == ["vllm", "serve", "m", "--tensor-parallel-size", "8", "$(UNSET)", "$(TP)"]
    tp = after(launch, "--tensor-parallel-size")
    assert (pos(tp.span), tp.exact) == ((12, 73, 12, 80), False)  # "$(TP)", quotes included
    assert at(text, word(launch, "m").span) == "'m'" and word(launch, "m").exact


LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
spec:
  leaderWorkerTemplate:
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: img:v0.13.0
            args: ["vllm", "serve", "m", "--dp", "2"]
    workerTemplate:
      spec:
        containers:
          - name: worker
            image: img:v0.13.0
            command: ["sh", "-c", "vllm serve m --headless --dp 2 --data-parallel-start-rank 1"]
---
apiVersion: v1
kind: Service
metadata: {name: s}
---
apiVersion: apps/v1
kind: StatefulSet
spec:
  template:
    spec:
      containers: [{name: web, image: nginx}]
"""


def test_lws_leader_and_worker_and_multi_document_statuses():
    lws, service, statefulset = read_yaml(LWS)
    assert [(x.container, words(x)[:3]) for x in lws.launches] == [("leader", ["vllm", "serve", "m"]),
                                                                  ("worker", ["vllm", "serve", "m"])]
    assert pos(word(lws.launches[1], "--headless").span) == (16, 49, 16, 59)
    assert service is None  # not a pod template: not a launch file
    assert statefulset.launches == [] and "no container command" in statefulset.skipped


def test_custom_resources_with_pod_templates_anywhere():
    """llm-d's DisaggregatedSet: roles[].spec.leaderWorkerTemplate.workerTemplate.spec.containers."""
    text = ("apiVersion: disaggregatedset.x-k8s.io/v1\nkind: DisaggregatedSet\nspec:\n  roles:\n"
            "  - name: decode\n    spec:\n      leaderWorkerTemplate:\n        workerTemplate:\n          spec:\n"
            "            containers:\n            - name: vllm\n              image: img\n"
            "              args: [vllm, serve, m, --all2all-backend, deepep_low_latency]\n")
    (lf,) = read_yaml(text)
    (launch,) = lf.launches
    assert after(launch, "--all2all-backend").value == "deepep_low_latency"
    assert pos(after(launch, "--all2all-backend").span) == (13, 57, 13, 75)


def test_compose_environment_list_and_map_and_commands():
    text = """\
services:
  vllm:
    image: quay.io/ascend/vllm-ascend:v0.11.0rc0
    environment:
      - HCCL_BUFFSIZE=512
      - HOME
    command: vllm serve m --max-num-seqs 8 --port ${PORT:-8000}
  sgl:
    image: lmsysorg/sglang:latest
    environment: {DEEPEP_HCCL_BUFFSIZE: 800}
    entrypoint: ["bash", "-c", "python -m sglang.launch_server --tp $${TP} --x $$DEEPEP_HCCL_BUFFSIZE"]
"""
    (lf,) = read_yaml(text)
    vllm, sgl = lf.launches
    assert (vllm.context, vllm.container) == ("compose", "vllm")
    assert words(vllm) == ["vllm", "serve", "m", "--max-num-seqs", "8", "--port", None]  # host interpolation
    assert pos(word(vllm, "8").span) == (7, 42, 7, 43)
    assert {k: e.value for k, e in vllm.env.items()} == {"HCCL_BUFFSIZE": "512", "HOME": None}
    assert pos(vllm.env["HCCL_BUFFSIZE"].span) == (5, 9, 5, 26)
    assert after(sgl, "--tp").value is None and after(sgl, "--x").value == "800"
    assert at(text, after(sgl, "--x").span) == "$$DEEPEP_HCCL_BUFFSIZE"


NIGHTLY = """\
env_common: &env_common
  HCCL_BUFFSIZE: 1024
  SERVER_PORT: 8080
deployment:
  - name: prefill
    envs:
      <<: *env_common
    server_cmd: >
      vllm serve vllm-ascend/DeepSeek-R1-0528-W8A8
          --port $SERVER_PORT
          --max-num-seqs 4
          --speculative-config '{"num_speculative_tokens": 1,
          "method":"mtp"}'
"""


def test_yaml_server_cmd_string_with_envs_beside_it():
    (lf,) = read_yaml(NIGHTLY)
    (launch,) = lf.launches
    assert (launch.context, launch.container) == ("yaml", "prefill")
    assert words(launch)[:3] == ["vllm", "serve", "vllm-ascend/DeepSeek-R1-0528-W8A8"]
    assert after(launch, "--port").value == "8080"  # from the envs map (merged through the anchor)
    assert pos(after(launch, "--max-num-seqs").span) == (11, 26, 11, 27)
    spec = after(launch, "--speculative-config")
    # `>` keeps the break between more-indented lines; shlex keeps it inside the quotes
    assert spec.value == '{"num_speculative_tokens": 1,\n    "method":"mtp"}'
    assert pos(spec.span) == (12, 32, 13, 27)
    assert launch.env["HCCL_BUFFSIZE"].value == "1024"


def test_yaml_server_cmd_flag_list_runs_as_vllm_serve_model():
    text = ("envs: {SERVER_PORT: '9000'}\ncases:\n  - name: single\n    model: org/DeepSeek-V3\n"
            "    envs: {HCCL_BUFFSIZE: '512'}\n    server_cmd: [--port, $SERVER_PORT, --max-num-seqs, '16']\n"
            "    server_cmd_extra: [--enforce-eager]\n")
    (lf,) = read_yaml(text)
    (launch,) = lf.launches
    assert words(launch) == ["vllm", "serve", "org/DeepSeek-V3", "--port", "$SERVER_PORT", "--max-num-seqs", "16",
                             "--enforce-eager"]  # the nearest envs map has no SERVER_PORT: left as written
    assert not launch.argv[0].exact and pos(launch.argv[0].span) == (6, 5, 6, 15)  # the server_cmd key
    assert pos(word(launch, "16").span) == (6, 56, 6, 60)
    assert launch.env["HCCL_BUFFSIZE"].value == "512"


def test_yaml_run_script_keeps_newlines_as_command_ends():
    text = "steps:\n  - run: |\n      export TP=2\n      vllm serve m --tp $TP\n"
    (lf,) = read_yaml(text)
    assert [words(x) for x in lf.launches] == [["vllm", "serve", "m", "--tp", "2"]]


def test_embedded_yaml_patch_is_not_read_as_a_script():
    text = ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\npatches:\n"
            "  - target: {kind: LeaderWorkerSet}\n    patch: |-\n      - op: replace\n"
            "        path: /spec/leaderWorkerTemplate/workerTemplate/spec/containers/0/args/0\n"
            "        value: vllm serve m --tp 8\n")
    assert read_yaml(text) == [None]


def test_helm_template_in_a_parsable_value_is_mc024_and_unknown():
    text = ('apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: c\n      image: x\n'
            '      args: ["vllm", "serve", "{{ .Values.model }}", "--tp", "8"]\n')
    (lf,) = read_yaml(text)
    assert words(lf.launches[0]) == ["vllm", "serve", None, "--tp", "8"]
    assert [(p.code, pos(p.span)) for p in lf.problems] == [("MC024", (7, 31, 7, 52))]


def test_template_problem_for_text_that_is_not_yaml():
    text = "spec:\n  replicas: {{ .Values.replicas }}\n  args:\n  {{- range .Values.args }}\n"
    p = template_problem(text)
    assert (p.code, pos(p.span)) == ("MC024", (2, 13, 2, 35))
    assert "helm template" in p.message
    assert template_problem("a: [1, 2\n") is None


def test_documents_that_are_not_launch_files_return_none():
    assert read_yaml("kind: ascend\nbs: 8\n") == [None]
    assert read_yaml("name: x\nsteps: [a, b]\n") == [None]
    assert read_yaml("- 1\n- 2\n") == [None]


# dstack (dstackai/dstack docs, `type: task` / `service`): `env:` is a list of `NAME=value` strings, the process
# environment of `commands:`; a bare `NAME` takes its value from the CLI's environment or a secret (issue 32)
DSTACK = """\
type: task
name: sglang-deepep
image: lmsysorg/sglang:v0.5.3-cu128
env:
  - MODEL_ID=deepseek-ai/DeepSeek-V3
  - SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=256
  - HF_TOKEN
commands:
  - python3 -m sglang.launch_server --model-path $MODEL_ID --tp 16 --moe-a2a-backend deepep
"""


def test_dstack_env_list_is_the_process_environment():
    (lf,) = read_yaml(DSTACK)
    (launch,) = lf.launches
    assert launch.env["SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"].value == "256"
    assert pos(launch.env["SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"].span)[0] == 6
    assert launch.image == "lmsysorg/sglang:v0.5.3-cu128"  # the release the command runs comes from its tag
    assert after(launch, "--model-path").value == "deepseek-ai/DeepSeek-V3"
    assert launch.env["HF_TOKEN"].value is None  # set from outside the file: unknown, never ""


def test_env_list_of_name_value_items():
    text = ("jobs:\n  - name: serve\n    env:\n      - name: HCCL_BUFFSIZE\n        value: '1024'\n"
            "      - name: POD_IP\n        valueFrom: {fieldRef: {fieldPath: status.podIP}}\n"
            "    run: vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 16\n")
    (lf,) = read_yaml(text)
    (launch,) = lf.launches
    assert launch.env["HCCL_BUFFSIZE"].value == "1024" and pos(launch.env["HCCL_BUFFSIZE"].span)[0] == 5
    assert launch.env["POD_IP"].value is None  # from the cluster: unknown
