#!/usr/bin/env bash
# One call on a CUDA host: riptide's benchmarks, the whole test suite on the GPU, and the demo.
# Logs go under $OUT (or /tmp/riptide-gpu); a short summary is printed last.
# Prepare the checkout first with ../shared/tools/gpu-prep.sh polars (fills .whl/ with the wheels the host lacks),
# then run from the repository root:  bash tools/gpu-check.sh
set -u
out=${OUT:-/tmp/riptide-gpu}
mkdir -p "$out"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH RIPTIDE_DEVICE=gpu PYTHONUNBUFFERED=1
python3 -m riptide.cli info > "$out/info.txt" 2>&1
timeout "${BENCH_TIMEOUT:-200}" python3 -m riptide.cli bench --json "$out/bench.json" > "$out/bench.txt" 2>&1
echo "bench exit: $?" >> "$out/bench.txt"
timeout "${TEST_TIMEOUT:-300}" python3 -m pytest -q -p no:cacheprovider tests > "$out/tests.txt" 2>&1
echo "tests exit: $?" >> "$out/tests.txt"
timeout "${DEMO_TIMEOUT:-90}" python3 -m riptide.cli demo --no-progress > "$out/demo.txt" 2>&1
echo "demo exit: $?" >> "$out/demo.txt"
cat "$out/info.txt"
echo "--- demo (tail)"; tail -n 14 "$out/demo.txt"
echo "--- tests (tail)"; grep -E "^(FAILED|ERROR)" "$out/tests.txt" | head -20; tail -n 3 "$out/tests.txt"
echo "--- bench (tail)"; tail -n 25 "$out/bench.txt"
