#!/usr/bin/env bash
# Real-GPU check of the local Sluice, run on the device: start it (SQLite, own replicas), deploy
# bench/gpu/fn (torch on CUDA), push jobs over HTTP, and write what happens to
# $OUT/gpu-report.txt (+ service.log). Needs the tracked tree and the carry that
# bench/gpu/build.mjs makes in .gpu (node.xz, cli/, node_modules/).
# Each step fails soft: its error goes into the report and the script goes on where it can.
# Knobs (env): OUT, PY (python with torch), EMULATE (false), SANDBOX (auto), N, ITERS, WARM,
# LONG_ITERS, BUDGET_S (wall-clock budget for the whole script, default 330).
set -u
R=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/sluice-gpu-out}
W=${WORK:-/tmp/sluice-gpu}
PY=${PY:-$(command -v python3)}
EMULATE=${EMULATE:-false}
SANDBOX=${SANDBOX:-auto}
PORT=${PORT:-18080}
BASE=http://127.0.0.1:$PORT
KEY=sk_gpucheck_0123456789abcdef
export N=${N:-8192} ITERS=${ITERS:-20} WARM=${WARM:-10} LONG_ITERS=${LONG_ITERS:-2000}
START=$(date +%s)
DEADLINE=$((START + ${BUDGET_S:-330}))
mkdir -p "$OUT"
rm -rf "$W" && mkdir -p "$W/bin" "$W/config" "$W/nowheels" "$W/fn"
export REPORT=$OUT/gpu-report.txt
: >"$REPORT"
NODE=$W/bin/node

log() { echo "[+$(($(date +%s) - START))s] $*" | tee -a "$REPORT"; }
# step NAME CAP_S CMD...: runs CMD under a timeout (CAP_S, cut to what the budget leaves), output into the report.
step() {
  local name=$1 cap=$2 left rc
  shift 2
  left=$((DEADLINE - $(date +%s) - 15))
  ((left < cap)) && cap=$left
  if ((cap < 5)); then log "SKIP $name: out of time budget"; return 124; fi
  log ">>> $name (limit ${cap}s)"
  local t0=$(date +%s.%N)
  # Shell functions run in a child bash (exported with export -f), so timeout can stop them.
  if [ "$(type -t "$1")" = function ]; then set -- bash -c '"$@"' _ "$@"; fi
  timeout -k 5 "$cap" "$@" 2>&1 | tee -a "$REPORT"
  rc=${PIPESTATUS[0]}
  log "<<< $name rc=$rc in $(python3 -c "import time;print(round(time.time()-$t0,2))" 2>/dev/null || echo '?')s"
  return "$rc"
}

facts() {
  date -u; uname -a; nproc; free -g | head -2
  echo "PY=$PY -> $(readlink -f "$PY")"
  "$PY" -c 'import sys,sysconfig;print(sys.version);print("prefix",sys.prefix,"base",sys.base_prefix);print("purelib",sysconfig.get_paths()["purelib"])'
  "$PY" -c 'import torch;print("torch",torch.__version__,"cuda",torch.version.cuda,"available",torch.cuda.is_available(),"count",torch.cuda.device_count())'
  "$PY" -c 'import ensurepip;print("ensurepip: present")' || echo 'ensurepip: MISSING (venv with pip will fail)'
  "$PY" -m pip --version || echo 'pip: missing in PY'
  echo "bwrap: $(command -v bwrap || echo absent)"; echo "xz: $(command -v xz || echo absent)"; echo "curl: $(command -v curl || echo absent)"
  ls -l /dev/nvidia* 2>&1 | head; nvidia-smi -L; nvidia-smi
  env | grep -E '^(CUDA|NVIDIA|LD_LIBRARY_PATH|PIP_)' || true
  du -sh "$R/.gpu" 2>/dev/null
}

venv_check() {
  rm -rf "$W/venvcheck" && "$PY" -m venv "$W/venvcheck" && "$W/venvcheck/bin/python" -m pip --version
}

unpack_node() {
  if command -v xz >/dev/null; then xz -dc "$R/.gpu/node.xz" >"$NODE"; else "$PY" -c 'import lzma,shutil,sys;shutil.copyfileobj(lzma.open(sys.argv[1]),open(sys.argv[2],"wb"))' "$R/.gpu/node.xz" "$NODE"; fi
  chmod +x "$NODE" && "$NODE" --version
}

wait_healthy() {
  for _ in $(seq 1 120); do
    "$PY" -c "import urllib.request,sys;print(urllib.request.urlopen('$BASE/healthz',timeout=2).read().decode())" 2>/dev/null && return 0
    kill -0 "$SPID" 2>/dev/null || { echo "service exited"; return 1; }
    sleep 0.5
  done
  return 1
}

export -f facts venv_check unpack_node wait_healthy
export R W PY NODE BASE
log "Sluice GPU check: repo $R, work $W, out $OUT, PY=$PY EMULATE=$EMULATE SANDBOX=$SANDBOX N=$N ITERS=$ITERS"
step "facts (nvidia-smi before)" 40 facts
step "unpack node" 40 unpack_node || { log "FATAL: no node, nothing more to run"; exit 1; }
export PATH=$W/bin:$PATH
step "baseline: the function's code on PY directly, outside Sluice" 100 env PYTHONPATH="$R/python" "$PY" "$R/bench/gpu/fn/main.py" "$N" "$ITERS"

# Builds make venvs with pip (python -m venv, ensurepip). A distribution's Python may lack ensurepip
# (Debian/Ubuntu: python3.X-venv); then, as an operator would install that package, put 3.12's in.
if ! step "python -m venv with pip, from PY (as every build does)" 60 venv_check; then
  STDLIB=$("$PY" -c 'import os,sys;print(os.path.join(sys.base_prefix,"lib","python%d.%d"%sys.version_info[:2]))')
  if [ "$("$PY" -c 'import sys;print("%d.%d"%sys.version_info[:2])')" = 3.12 ] && [ -d "$STDLIB" ]; then
    log "FALLBACK: installing the carried ensurepip (CPython 3.12.1, pip 23.2.1) into $STDLIB (old one kept as ensurepip.orig-gpucheck)"
    [ -e "$STDLIB/ensurepip" ] && mv "$STDLIB/ensurepip" "$STDLIB/ensurepip.orig-gpucheck"
    cp -r "$R/.gpu/ensurepip312" "$STDLIB/ensurepip" 2>&1 | tee -a "$REPORT"
    step "python -m venv with pip, after the fallback" 60 venv_check
  fi
fi

TORCH_SITE=$("$PY" -c 'import os,torch;print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null || echo /nonexistent)
PYVER=$("$PY" -c 'import sys;print("%d.%d"%sys.version_info[:2])')
sed -e "s#@TORCH_SITE@#$TORCH_SITE#" -e "s#@PYVER@#$PYVER#" "$R/bench/gpu/fn/main.py" >"$W/fn/main.py"
log "function: torch site $TORCH_SITE, python $PYVER"
# Under bubblewrap a replica sees /usr and /opt (and its own folders), not /root or /home.
if [ "$SANDBOX" = auto ] && command -v bwrap >/dev/null && ! [[ $TORCH_SITE == /usr/* || $TORCH_SITE == /opt/* ]]; then
  log "bwrap is installed but torch ($TORCH_SITE) is outside /usr and /opt, which replicas would not see: SANDBOX=off"
  SANDBOX=off
fi

# The service's settings: documented variables only (docs/self-hosting.md, shared/config.ts).
export XDG_CONFIG_HOME=$W/config SLUICE_DATA_DIR=$W/data SLUICE_API_KEY=$KEY
export SLUICE_EMULATE_GPUS=$EMULATE SLUICE_GPU_MACHINE_TYPE=a100 SLUICE_SANDBOX=$SANDBOX
export SLUICE_PYTHON=$PY SLUICE_PYTHON_INTERPRETERS=$PY SLUICE_SHUTDOWN_GRACE_S=5 SLUICE_LOG_LEVEL=info
# No network there: pip fails at once instead of retrying an unreachable index (default packages then warn).
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$W/nowheels PIP_DISABLE_PIP_VERSION_CHECK=1
unset PIP_EXTRA_INDEX_URL PIP_INDEX_URL PIP_CONSTRAINT

log ">>> start service"
T_START=$(date +%s.%N)
"$NODE" "$R/.gpu/cli/main.js" start --port "$PORT" --data-dir "$W/data" >"$OUT/service.log" 2>&1 &
export SPID=$!
if step "wait for /healthz" 60 wait_healthy; then
  log "service healthy after $(python3 -c "import time;print(round(time.time()-$T_START,2))" 2>/dev/null)s"
  grep -E 'GPU|sandbox|Sandbox|UNCONFINED|warn' "$OUT/service.log" | head -20 | tee -a "$REPORT"
  T_DEP=$(date +%s.%N)
  if step "deploy (build, cold environment)" 200 "$NODE" "$R/.gpu/cli/main.js" deploy "$W/fn" --timeout 4m; then
    log "deploy+build took $(python3 -c "import time;print(round(time.time()-$T_DEP,2))")s"
    SMI=""
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=timestamp,name,utilization.gpu,memory.used,clocks.sm,power.draw --format=csv -lms 500 >"$OUT/nvsmi.csv" 2>&1 &
      SMI=$!
    fi
    SLUICE_BASE=$BASE SLUICE_KEY=$KEY step "jobs through the HTTP API" 240 "$PY" -u "$R/bench/gpu/driver.py"
    [ -n "$SMI" ] && kill "$SMI" 2>/dev/null
  fi
  step "environment made" 20 bash -c "ls -la '$W/data/envs' 2>&1; cat '$W'/data/envs/*/lib/python*/site-packages/device-torch.pth 2>&1"
else
  log "service did not become healthy; see service.log"
fi
log ">>> stop service"
kill -TERM "$SPID" 2>/dev/null
for _ in $(seq 1 30); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.5; done
kill -0 "$SPID" 2>/dev/null && { log "service still up: SIGKILL"; kill -KILL "$SPID"; }
log "=== service log events"
grep -E '"msg":"(GPU|build|replica|job (started|finished|error)|listening|stopped)' "$OUT/service.log" | cut -c1-400 | tail -40 | tee -a "$REPORT"
log "done in $(($(date +%s) - START))s"
# The lines that answer the questions, last, so they are what a truncated output keeps.
echo "=== SUMMARY"
grep -E '^\[\+[0-9]+s\] (<<<|service healthy|deploy\+build|FALLBACK|bwrap is|FATAL|function:)|^(cold|warm \(|warm TFLOP|cold job)|^\[(cold|long)\]|^torch |^PY=|^bwrap:|^ensurepip|"compute_type"|^\{"cuda_available"|Warning: default|Build failed' "$REPORT" | cut -c1-700 | head -60
grep -A2 '"a100": {' "$REPORT" | head -3
