#!/usr/bin/env bash
# The GPU evidence in one run, on a machine with an NVIDIA GPU and a CUDA build of torch:
#
#   bench/gpu_smoke.sh [OUT_DIR]          (default: $OUT)
#
# 1. installs this checkout (pip install --no-deps --no-build-isolation .; a plain copy on
#    PYTHONPATH if that fails), 2. runs torchdoctor check --json with every check, 3. fragments
#    the caching allocator with bench/fragmenting_workload.py, dumps its snapshot and judges it
#    with --memory-snapshot and with memory_report() inside the process, 4. runs nvbandwidth's
#    host_to_device_memcpy_ce where the binary exists, 5. runs bench/pinned_bandwidth.py (the
#    check against nvbandwidth or its method in torch, as ratios), 6. turns the recorded facts
#    into fixtures of this machine (OUT_DIR/fixtures, for tests/fixtures/), 7. runs torchdoctor run on
#    the scripts of tests/runtime/scripts on the GPU (the paths the CPU tests reach only through meta and
#    fake CUDA tensors) and bench/runtime_overhead.py.
#
# Everything goes to OUT_DIR: one NAME.out / NAME.err per step, steps.tsv (step, exit status,
# seconds), smoke.log, summary.txt. Each step is bounded with timeout and the whole run by
# SMOKE_BUDGET_S (default 480 s); a failing step is logged and the next one runs. SMOKE_PLAIN_COPY=1
# skips pip and runs from the plain copy.
set -u

out="${1:-${OUT:-}}"
if [ -z "$out" ]; then
    echo "usage: $0 OUT_DIR (or set OUT)" >&2
    exit 2
fi
mkdir -p "$out" || exit 2
out="$(cd "$out" && pwd)"
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo" || exit 2
PY="${PYTHON:-python3}"
deadline=$((SECONDS + ${SMOKE_BUDGET_S:-480}))
: >"$out/steps.tsv"

log() {
    printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" | tee -a "$out/smoke.log" >&2
}

# step NAME LIMIT_S COMMAND...: stdout to NAME.out, stderr to NAME.err, a line in steps.tsv.
step() {
    local name=$1 limit=$2
    shift 2
    local left=$((deadline - SECONDS - 10))
    if [ "$left" -lt 15 ]; then
        log "skip $name: the run's deadline is near"
        printf '%s\tskipped\t0\n' "$name" >>"$out/steps.tsv"
        return 0
    fi
    if [ "$limit" -gt "$left" ]; then
        limit=$left
    fi
    log "start $name (at most ${limit} s)"
    local started=$SECONDS
    timeout -k 10 "$limit" "$@" >"$out/$name.out" 2>"$out/$name.err"
    local status=$?
    printf '%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - started))" >>"$out/steps.tsv"
    log "end $name: exit $status after $((SECONDS - started)) s"
    return 0
}

# A copy of the package on PYTHONPATH, with the entry points pip would have written.
plain_copy() {
    local site="$out/site"
    rm -rf "$site" && mkdir -p "$site" || return 1
    cp -r "$repo/torchdoctor" "$site/torchdoctor" && cp -r "$repo/checks" "$site/torchdoctor/checks" || return 1
    "$PY" - "$site" <<'PYTHON'
import pathlib
import sys
import tomllib

site = pathlib.Path(sys.argv[1])
project = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["project"]
scope: dict = {}
exec(pathlib.Path("torchdoctor/_version.py").read_text(), scope)
info = site / f"torchdoctor-{scope['__version__']}.dist-info"
info.mkdir()
(info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torchdoctor\nVersion: {scope['__version__']}\n")
checks = project["entry-points"]["torchdoctor.checks"]
(info / "entry_points.txt").write_text(
    "[torchdoctor.checks]\n" + "".join(f"{k} = {v}\n" for k, v in checks.items())
)
PYTHON
}

step machine 60 bash -c '
    nvidia-smi; nvidia-smi -q; nvidia-smi topo -m
    lscpu; command -v numactl >/dev/null && numactl -H; echo "ulimit -l: $(ulimit -l)"
    '"$PY"' -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.device_count())"
'

if [ -z "${SMOKE_PLAIN_COPY:-}" ]; then
    step install 150 "$PY" -m pip install --no-deps --no-build-isolation .
fi
if ! (cd / && "$PY" -c "import torchdoctor.checks.pinned_transfer") 2>>"$out/install.err"; then
    log "pip could not install the checkout; running from a plain copy on PYTHONPATH"
    if plain_copy 2>>"$out/install.err"; then
        export PYTHONPATH="$out/site${PYTHONPATH:+:$PYTHONPATH}"
    fi
fi

# From here on, run outside the checkout: in its root, python -m torchdoctor would import the source
# folder torchdoctor/, which lacks the checks (pyproject maps checks/ into the package at install).
cd "$out" || exit 2

step check 180 "$PY" -m torchdoctor check --json --timeout 120
cp "$out/check.out" "$out/check.json" 2>/dev/null

step memory_checks 120 "$PY" -m torchdoctor check -v --only gpu.memory,gpu.fragmentation,transfer.pinned

step workload 120 "$PY" "$repo/bench/fragmenting_workload.py" "$out/workload"

step snapshot_check 60 "$PY" -m torchdoctor check -v --only gpu.fragmentation \
    --memory-snapshot "$out/workload/snapshot.pickle"

if command -v nvbandwidth >/dev/null; then
    step nvbandwidth 150 nvbandwidth -t host_to_device_memcpy_ce device_to_host_memcpy_ce
else
    log "nvbandwidth is not installed here: bench/pinned_bandwidth.py uses nvbandwidth's method in torch"
fi

step bandwidth 180 "$PY" "$repo/bench/pinned_bandwidth.py" --out "$out/pinned_bandwidth.json"

step quick 90 "$PY" -m torchdoctor check --json --only transfer.pinned --quick

step fixtures 60 "$PY" "$repo/bench/record_fixture.py" "$out"

# torchdoctor run on a real GPU: the real CUDA messages, real pinned memory, real synchronisations, the
# deserialisation of a checkpoint saved on cuda:3, torchrun with one report per rank.
scripts="$repo/tests/runtime/scripts"
step run_plain_attribute 60 env DEMO_DEVICE=cuda "$PY" -m torchdoctor run "$scripts/plain_attribute.py"
step run_discarded_to 60 env DEMO_DEVICE=cuda "$PY" -m torchdoctor run "$scripts/discarded_to.py"
step run_helper_deep 60 env DEMO_DEVICE=cuda "$PY" -m torchdoctor run --deep "$scripts/helper_tensor.py" mask
step run_checkpoint 60 bash -c '"$0" "$1/make_checkpoint.py" "$2/checkpoint_cuda3.pt" cuda:3 &&
    "$0" -m torchdoctor run "$1/checkpoint_device.py" "$2/checkpoint_cuda3.pt"' "$PY" "$scripts" "$out"
step run_transfers 60 env DEMO_DEVICE=cuda "$PY" -m torchdoctor run --report "$out/run_transfers.json" \
    "$scripts/pageable_non_blocking.py"
step run_syncs 60 env DEMO_DEVICE=cuda "$PY" -m torchdoctor run --deep --report "$out/run_syncs.json" \
    "$scripts/implicit_syncs.py"
step run_fp16_nan 60 env DEMO_DEVICE=cuda "$PY" -m torchdoctor run --nan "$scripts/fp16_overflow.py"
step run_ranks 120 "$PY" -m torch.distributed.run --standalone --nproc-per-node 2 -m torchdoctor run \
    --report "$out/run_ranks.json" "$scripts/ranks_cuda0.py"
step run_overhead 300 "$PY" "$repo/bench/runtime_overhead.py" --runs 5

{
    echo "steps (name, exit status, seconds):"
    cat "$out/steps.tsv"
    echo
    echo "bandwidth, the check against the reference:"
    grep -E "^GPU |targets" "$out/bandwidth.out" 2>/dev/null
    echo
    echo "torchdoctor run, the first line of each block it wrote:"
    for err in "$out"/run_*.err; do
        [ -e "$err" ] && grep -A1 -h "^== torchdoctor run" "$err" | grep -v "^== \|^--$" | sed "s|^|$(basename "$err" .err): |"
    done
    ls "$out"/run_ranks.rank*.json 2>/dev/null
    tail -4 "$out/run_overhead.out" 2>/dev/null
} >"$out/summary.txt"
log "done in $SECONDS s; $out/summary.txt"
cat "$out/summary.txt"
exit 0
