"""`docker run [OPTIONS] IMAGE COMMAND` (sources/shell/wrappers.py container_run): the command the container runs is
the launch, the image names its framework version, `-e` is its environment and the host's is not.
Published form: XiaomiMiMo/MiMo-V2-Flash and vendors' READMEs (`docker run --gpus all ... lmsysorg/sglang:TAG
python3 -m sglang.launch_server ...`)."""
from __future__ import annotations

import pytest
from reader_helpers import words

from moecfg.sources.readers import read_shell

IMAGE = "lmsysorg/sglang:v0.5.8-cu130"
SERVE = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8"


def launches(text: str):
    return read_shell(text).launches


@pytest.mark.parametrize("options", [
    "", "-it --rm", "--gpus all --shm-size 32g -p 30000:30000 --ipc=host", "-v /data:/data -w /work --name sgl",
    "--gpus '\"device=0,1\"' --network host --privileged -d", "--runtime=nvidia --ulimit memlock=-1"])
def test_the_containers_command_is_the_launch_and_its_image_is_kept(options):
    (launch,) = launches(f"docker run {options} {IMAGE} {SERVE}\n")
    assert words(launch)[:3] == ["python3", "-m", "sglang.launch_server"] and launch.image == IMAGE


def test_podman_and_docker_container_run():
    for tool in ("podman run", "docker container run", "nerdctl run"):
        (launch,) = launches(f"{tool} --rm {IMAGE} {SERVE}\n")
        assert words(launch)[0] == "python3" and launch.image == IMAGE, tool


def test_environment_is_the_containers_own():
    text = ("export HCCL_BUFFSIZE=200 NCCL_DEBUG=INFO\n"
            f"docker run -e NCCL_DEBUG -e SGLANG_DEEPEP_BF16_DISPATCH=1 --env=A=2 {IMAGE} {SERVE}\n")
    (launch,) = launches(text)
    env = {k: e.value for k, e in launch.env.items()}
    assert env == {"NCCL_DEBUG": "INFO", "SGLANG_DEEPEP_BF16_DISPATCH": "1", "A": "2"}  # not the host's HCCL_BUFFSIZE


def test_bash_c_inside_the_container_and_entrypoint():
    (inner,) = launches(f"docker run --rm -e X=1 {IMAGE} bash -c \"{SERVE}\"\n")
    assert words(inner)[0] == "python3" and inner.image == IMAGE and inner.env["X"].value == "1"
    (entry,) = launches(f"docker run --entrypoint python3 {IMAGE} -m sglang.launch_server --tp 8\n")
    assert words(entry)[:3] == ["python3", "-m", "sglang.launch_server"] and entry.image == IMAGE


@pytest.mark.parametrize("text", ["docker ps -a\n", f"docker run --rm {IMAGE}\n", "docker run --rm $IMAGE python3 x\n",
                                  f"docker run --entrypoint=python3 {IMAGE} -m x\n"])
def test_no_command_or_an_unknown_one_reads_as_written(text):
    assert all(words(x)[0] == "docker" and x.image is None for x in launches(text))


def test_the_image_tag_decides_the_version():
    from moecfg.backends import Options
    from moecfg.checking.engine import lint_text

    text = f"docker run --gpus all {IMAGE} {SERVE} --moe-a2a-backend deepep\n"
    (r,) = lint_text(text, "s.sh", Options())
    assert r.launch["framework_version"] == "0.5.8" and r.arguments["num_nvl_bytes"] == 335_709_824


def test_an_env_file_leaves_every_name_it_may_set_unknown():
    """`--env-file` is not read: a variable not set with -e may be set there (its value unknown, never a default)."""
    (launch,) = launches(f"docker run --env-file ./serve.env -e A=1 {IMAGE} {SERVE}\n")
    assert launch.env["A"].value == "1" and launch.env["HCCL_BUFFSIZE"].value is None
    assert "--env-file ./serve.env" in launch.env.why
