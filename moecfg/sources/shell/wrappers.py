"""Commands that run another command: `nohup`, `exec -a n`, `time -p`, `env -u X A=1`, `numactl -N 0 --`,
`taskset -c 0-7`, `timeout 600`, `stdbuf -oL`, `nice -n 5`, `ionice -c 2`, `srun ...`, `mpirun -np 8 -x A=1`.

Each wrapper is stripped with its own option table (options that take a value, positional words before the
program), so argv[0] is the program the frameworks recognise (`torchrun`, `python -m torch.distributed.run`,
`msrun`, `vllm` stay: they are what frameworks/ look for; frameworks/mindspeed/launcher.py reads msrun's and
torchrun's own options for the world size). Environment the wrapper gives the program (`env A=1`,
`mpirun -x A=1` / `-genv A 1`, `srun --export=A=1`) joins the launch's environment. An option a table does not
list is taken as a flag; a word that cannot be known (unless written `--opt=$X`) stops the stripping (it may be
the program).
Checked against the tools' --help: coreutils 9 (env, nohup, timeout, stdbuf, nice), util-linux 2.39 (taskset,
ionice), numactl 2.0, Slurm 23 srun, Open MPI 4/5 mpirun and MPICH/Intel hydra mpiexec.
"""
from __future__ import annotations

import re

from moecfg.core.record import record
from moecfg.sources.launch import EnvEntry

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@record(frozen=True)
class Wrapper:
    values: frozenset = frozenset()  # options followed by one value word
    pairs: frozenset = frozenset()  # options followed by two words (mpirun --mca key value)
    positionals: int = 0  # words before the program (timeout DURATION, taskset MASK)
    stop: frozenset = frozenset()  # options after which no program follows (taskset -p: a running pid)


def _w(values: str = "", pairs: str = "", positionals: int = 0, stop: str = "") -> Wrapper:
    return Wrapper(frozenset(values.split()), frozenset(pairs.split()), positionals, frozenset(stop.split()))


_MPI = _w("-np -n -c -N -H -host --host -hosts -hostfile --hostfile -machinefile --machinefile -f --map-by "
          "-map-by --bind-to -bind-to --rank-by -wdir --wdir -wd --prefix -npernode --npernode -ppn -iface "
          "-bootstrap --output-filename -output-filename -x", "-mca --mca -gmca --gmca -genv -env")
WRAPPERS = {
    "nohup": _w(), "exec": _w("-a"), "time": _w("-f -o --format --output"),
    "numactl": _w("-C -N -m -i -p -P -w --physcpubind --cpunodebind --membind --interleave --preferred "
                  "--preferred-many --weighted-interleave"),
    "taskset": _w(positionals=1, stop="-p --pid"),
    "timeout": _w("-s -k --signal --kill-after", positionals=1),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "nice": _w("-n --adjustment"), "ionice": _w("-c -n -p -P -u --class --classdata --pid --pgid --uid"),
    "srun": _w("-A -b -c -d -D -e -G -i -J -L -m -M -n -N -o -p -q -S -t -T -w -x -W --account --nodes --ntasks "
               "--ntasks-per-node --cpus-per-task --gpus --gpus-per-node --gpus-per-task --gres --partition "
               "--time --job-name --output --error --container-image --container-mounts --container-workdir "
               "--container-name --mpi --export --nodelist --exclude --distribution --cpu-bind --mem --qos "
               "--reservation --constraint --dependency --chdir"),
    "mpirun": _MPI, "mpiexec": _MPI, "orterun": _MPI,
}


def _text(word) -> str:
    """An option word as written: `--container-image=${IMAGE}` is an option even when its value is unknown."""
    return word.value if word.value is not None else getattr(word, "script", None) or ""


# `docker run` / `podman run` options that take a value (Docker 27 `docker run --help`, podman 5 `podman run`):
# the image is the first word after them, the container's command follows it
_CONTAINER_VALUES = frozenset("""-a --attach --add-host --annotation --blkio-weight -c --cpu-shares --cap-add --cap-drop
    --cgroup-parent --cgroupns --cidfile --cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime --cpus --cpuset-cpus
    --cpuset-mems --device --device-cgroup-rule --device-read-bps --device-write-bps --dns --dns-option --dns-search
    --domainname --entrypoint -e --env --env-file --expose --gpus --group-add --health-cmd --health-interval
    --health-retries --health-start-period --health-timeout -h --hostname --ip --ip6 --ipc --isolation -l --label
    --label-file --link --log-driver --log-opt --mac-address -m --memory --memory-reservation --memory-swap
    --memory-swappiness --mount --name --network --net --network-alias --oom-score-adj --pid --pids-limit --platform
    -p --publish --pull --restart --runtime --security-opt --shm-size --stop-signal --stop-timeout --storage-opt
    --sysctl --tmpfs --ulimit -u --user --userns --uts -v --volume --volume-driver --volumes-from -w --workdir""".split())
_CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl"})


class Stripper:
    """Strips wrappers off `argv` (Built words); `prefix` gains the environment they set, `clear` is set
    by `env -i` and by a container (`docker run`: the host's environment stays outside but for `-e NAME`, listed in
    `passed`), `image` by a container's image. `launches` is False when the wrappers run no program
    (`taskset -p MASK PID`)."""

    def __init__(self, prefix: dict):
        self.prefix, self.clear, self.launches = prefix, False, True
        self.removed: set[str] = set()  # env -u X
        self.passed: set[str] = set()  # docker run -e NAME: the host's value of NAME
        self.image: str | None = None
        self.env_file = None  # docker run --env-file FILE: (its word, the file as written): names it sets are unknown

    def strip(self, argv: list) -> list:
        i = 0  # an index, not slices: `env env env ...` 100,000 times stays linear
        while i < len(argv) and argv[i].value:
            name = argv[i].value.rsplit("/", 1)[-1]
            if name == "env":
                i = self.env_args(argv, i + 1)
            elif name in _CONTAINER_TOOLS and i + 1 < len(argv) and argv[i + 1].value in ("run", "container"):
                inside = self.container_run(argv, i + 2 + (argv[i + 1].value == "container"))
                if inside is None:  # not a run, or what runs is not known: left as written (no launch in it)
                    break
                argv, i = inside, 0
            elif name in WRAPPERS:
                i = self.options(WRAPPERS[name], argv, i + 1)
            else:
                break
        return argv[i:]

    def options(self, spec: Wrapper, argv: list, i: int) -> int:
        while i < len(argv) and _text(argv[i]).startswith("-") and _text(argv[i]) != "-":
            opt = _text(argv[i])
            if opt == "--":
                i += 1
                break
            if opt in spec.stop:
                self.launches = False
                return len(argv)
            key = opt.split("=", 1)[0]
            step = 1 if "=" in opt and key.startswith("--") else 3 if opt in spec.pairs else \
                2 if opt in spec.values else 1
            self.exported(key, argv[i:i + step], "=" in opt and opt.split("=", 1)[1])
            i += step
        return min(i + spec.positionals, len(argv))

    def exported(self, key: str, words: list, inline) -> None:
        """mpirun -x A=1, mpiexec -genv A 1, srun --export=ALL,A=1: the program's environment."""
        if key == "-x" and len(words) == 2 and words[1].value and _NAME.match(words[1].value):
            self.set(words[1].value, words[1])
        elif key in ("-genv", "-env") and len(words) == 3 and words[1].value:
            self.prefix[words[1].value] = EnvEntry(words[1].value, words[2].value, words[2].span)
        elif key == "--export" and (inline or len(words) == 2):
            text = inline or words[1].value or ""
            for item in text.split(","):
                if item == "NONE":
                    self.clear = True
                elif _NAME.match(item):
                    self.set(item, words[-1])

    def set(self, assignment: str, word) -> None:
        name, _, value = assignment.partition("=")
        self.prefix[name] = EnvEntry(name, value, word.span)

    def container_run(self, argv: list, i: int) -> list | None:
        """`docker run [OPTIONS] IMAGE [COMMAND...]` (`docker container run`, podman, nerdctl): the options' `-e
        NAME=V` set the container's environment, `-e NAME` passes the host's; the image is kept (its tag names the
        framework version); `--entrypoint X` runs X with the words after the image. Returns the words of the program
        the container runs; None: not a run (`container ls`), no command, or one not known statically."""
        if i > len(argv) or argv[i - 1].value != "run":
            return None
        entrypoint = None
        while i < len(argv) and _text(argv[i]).startswith("-"):
            opt = _text(argv[i])
            key, inline = opt.split("=", 1) if "=" in opt and opt.startswith("--") else (opt, None)
            value = None if inline is not None else argv[i + 1] if key in _CONTAINER_VALUES and i + 1 < len(argv) \
                else None
            text = inline if inline is not None else value.value if value is not None else None
            if key in ("-e", "--env") and text:
                if _NAME.match(text):
                    self.set(text, value or argv[i])
                else:
                    self.passed.add(text)
            elif key == "--env-file":
                self.env_file = (value or argv[i], text or "(not known statically)")
            elif key == "--entrypoint":
                entrypoint = value if value is not None else argv[i]
                if inline is not None or value is None or value.value is None:
                    return None  # `--entrypoint=X` or an unknown program: what runs is not known
            i += 1 if inline is not None or key not in _CONTAINER_VALUES else 2
        if i >= len(argv) or argv[i].value is None:
            return None  # no image, or an image not known statically: no command to read after it
        inside = ([entrypoint] if entrypoint is not None else []) + argv[i + 1:]
        if not inside:
            return None
        self.clear, self.image = True, argv[i].value
        return inside

    def env_args(self, argv: list, i: int) -> int:
        while i < len(argv) and argv[i].value is not None:
            text = argv[i].value
            if text in ("-i", "-", "--ignore-environment"):
                self.clear = True
            elif text in ("-u", "--unset") and i + 1 < len(argv):
                self.removed.add(argv[i + 1].value or "")
                self.prefix.pop(argv[i + 1].value or "", None)
                i += 1
            elif text in ("-C", "--chdir"):
                i += 1
            elif text == "--":
                i += 1
                break
            elif text.startswith("-"):
                pass
            elif _NAME.match(text):
                self.set(text, argv[i])
            else:
                break
            i += 1
        return i
