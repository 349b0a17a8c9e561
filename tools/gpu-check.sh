#!/usr/bin/env bash
# Runs on the GPU machine over a copy of the work tree with build-gpu/ carried (built
# here: cmake --preset gpu && cmake --build build-gpu -j2). Logs go to $OUT.
#   tools/gpu-check.sh tests   unit tests, GPU tests, end-to-end CPU vs GPU byte identity
#   tools/gpu-check.sh bench   kernel and end-to-end benchmarks (tables on stdout)
set -uo pipefail
mode=${1:-tests}
b=${BUILD:-build-gpu}
g=$PWD/$b/gxsort
out=${OUT:-/tmp/gxsort-out}
mkdir -p "$out"
work=/tmp/gxsort-gpu-check
rm -rf "$work"; mkdir -p "$work"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
fail=0
step() { echo "== $*"; }

if [ "$mode" = tests ]; then
  step "unit tests"
  "$b/gxsort_unit_tests" > "$out/unit.log" 2>&1 || fail=1
  tail -3 "$out/unit.log"
  step "GPU tests"
  "$b/gxsort_cuda_tests" ${CUDA_TESTS:+-tc="$CUDA_TESTS"} > "$out/cuda.log" 2>&1 || fail=1
  grep -c SKIPPED "$out/cuda.log" | sed 's/^/skipped lines: /'
  tail -4 "$out/cuda.log"
  step "end to end: --device cpu and --device cuda give the same bytes"
  pass=0; bad=0
  e2e() {  # name, gen options, sort options
    local name=$1 genopt=$2 sortopt=$3
    "$g" gen -o "$work/$name.in" $genopt -q
    "$g" sort "$work/$name.in" -o "$work/$name.cpu" --device cpu $sortopt -q
    if "$g" sort "$work/$name.in" -o "$work/$name.gpu" --device cuda $sortopt -q && cmp -s "$work/$name.cpu" "$work/$name.gpu" \
       && "$g" check "$work/$name.gpu" $sortopt -q; then
      pass=$((pass+1)); echo "ok   $name"
    else
      bad=$((bad+1)); echo "FAIL $name"
    fi
    rm -f "$work/$name".*
  }
  for t in u32 u64 i32 i64 f32 f64; do
    e2e "flat-$t" "--count 3000017 --type $t --dist bits" "--type $t"
    e2e "flat-$t-rev-ooc" "--count 3000017 --type $t --dist few-unique" "--type $t -r --device-memory 8M --memory 16M --fan-in 4"
  done
  e2e rec24 "--count 1000003 --record-size 24 --key-offset 8 --key-type i64" "--record-size 24 --key-offset 8 --key-type i64"
  e2e rec24-ooc "--count 1000003 --record-size 24 --key-offset 8 --key-type f64 --dist bits" "--record-size 24 --key-offset 8 --key-type f64 --device-memory 8M --memory 8M --fan-in 3"
  e2e bytes5 "--count 777777 --record-size 16 --key-offset 3 --key-bytes 5 --dist few-unique" "--record-size 16 --key-offset 3 --key-bytes 5 --device-memory 4M --memory 8M"
  e2e gensort "--count 1000000 --format gensort" "--format gensort"
  e2e gensort-ooc "--count 1000000 --format gensort --dist few-unique" "--format gensort --device-memory 16M --memory 32M --fan-in 2"
  e2e u64-unique-in-device "--count 3000017 --dist few-unique" "-u"
  e2e u64-unique-ooc "--count 3000017 --dist zipf" "-u --device-memory 8M --memory 16M"
  for k in basic tiled circular thrust; do
    e2e "u64-ooc-$k" "--count 4000037 --dist zipf" "--device-memory 8M --memory 16M --merge-kernel $k"
  done
  step "check: cpu and cuda agree"
  "$g" gen -o "$work/c1" --count 9000001 --dist few-unique -q
  "$g" sort "$work/c1" -o "$work/c2" --device cpu -q
  "$g" gen -o "$work/c3" --count 2000000 --format gensort --dist few-unique -q
  for f in "c1" "c2" "c3 --format gensort"; do
    set -- $f
    want=$("$g" check "$work/$1" ${2:-} ${3:-} --device cpu); wrc=$?
    got=$("$g" check "$work/$1" ${2:-} ${3:-} --device cuda); grc=$?
    if [ "$got" = "$want" ] && [ $grc = $wrc ]; then pass=$((pass+1)); echo "ok   check $f"; else bad=$((bad+1)); echo "FAIL check $f: $got vs $want"; fi
  done
  step "reduce: cpu and cuda agree (flat, nested, cub)"
  "$g" gen -o "$work/r.in" --count 5000011 --type f64 --dist bits -q
  "$g" gen -o "$work/s.in" --count 5000011 --type i64 -q
  for f in "r.in --type f64" "s.in --type i64"; do
    set -- $f
    for op in sum min max mean minmax count; do
      want=$("$g" reduce "$work/$1" $2 $3 --op $op --device cpu)
      for a in flat nested cub; do
        got=$("$g" reduce "$work/$1" $2 $3 --op $op --device cuda --algo $a)
        if [ "$got" = "$want" ]; then pass=$((pass+1)); else bad=$((bad+1)); echo "FAIL reduce $f $op $a: $got vs $want"; fi
      done
    done
  done
  echo "end to end: $pass passed, $bad failed"
  [ "$bad" = 0 ] || fail=1
  "$g" info
  exit $fail
fi

# ---- benchmarks ----
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2-$1:.3f}')"; }
timeit() { local s e; s=$(now); "$@" >/dev/null || echo "FAILED: $*" >&2; e=$(now); secs "$s" "$e"; }
step "merge kernels"
"$b/bench/merge_kernels_bench" > "$out/merge_bench.log" 2>&1; grep -E "^\|" "$out/merge_bench.log" | head -20
step "reduce kernels"
"$b/bench/reduce_bench" > "$out/reduce_bench.log" 2>&1; grep -E "^\|" "$out/reduce_bench.log" | head -12

step "dedupe kernels (PBBS case)"
"$b/bench/dedupe_bench" > "$out/dedupe_bench.log" 2>&1; tail -8 "$out/dedupe_bench.log"
step "BFS"
WORK=/tmp bash tools/bench/bfs_bench.sh "$g" ${BFS_SCALES:-22} 2>&1 | tee "$out/bfs_bench.log" | tail -6

step "sort 4 GiB u64 on the GPU vs cp"
"$g" gen -o "$work/in4" --count 536870912 --seed 3 -q
c1=$(timeit cp "$work/in4" "$work/cp"); rm -f "$work/cp"
c2=$(timeit cp "$work/in4" "$work/cp"); rm -f "$work/cp"
s1=$(timeit "$g" sort "$work/in4" -o "$work/o4" --device cuda --stats-json "$out/sort4_stats.json")
"$g" check "$work/o4" -q || echo "CHECK FAILED"
s2=$(timeit "$g" sort "$work/in4" -o "$work/o4" --device cuda --device-memory 512M -T "$work" --stats-json "$out/sort4_dev18_stats.json")
"$g" check "$work/o4" -q || echo "CHECK FAILED"
s3=$(timeit "$g" sort "$work/in4" -o "$work/o4" --device cpu --stats-json "$out/sort4_cpu_stats.json")
rm -f "$work/o4"
python3 - "$c1" "$c2" "$s1" "$s2" "$s3" <<'PY'
import sys
c1, c2, s1, s2, s3 = map(float, sys.argv[1:]); cp = min(c1, c2)
print(f"| 4 GiB u64 | s | ratio to cp (best of {c1:.2f}, {c2:.2f}) |")
print("|---|---|---|")
print(f"| cp | {cp:.2f} | 1.00 |")
print(f"| gxsort sort --device cuda (fits the device) | {s1:.2f} | {s1/cp:.2f} |")
print(f"| gxsort sort --device cuda --device-memory 512M | {s2:.2f} | {s2/cp:.2f} |")
print(f"| gxsort sort --device cpu (16 threads) | {s3:.2f} | {s3/cp:.2f} |")
PY

step "reduce 8 GiB vs cat"
"$g" gen -o "$work/in8" --count 1073741824 --seed 4 -q
cat "$work/in8" > /dev/null
k1=$(timeit sh -c "cat '$work/in8' > /dev/null")
r1=$(timeit "$g" reduce "$work/in8" --op sum --device cuda)
r2=$(timeit "$g" reduce "$work/in8" --op sum --device cpu)
python3 - "$k1" "$r1" "$r2" <<'PY'
import sys
k, r1, r2 = map(float, sys.argv[1:]); gb = 8 * 2**30 / 1e9
print(f"| 8 GiB u64 in page cache | s | GB/s | throughput vs cat |")
print("|---|---|---|---|")
print(f"| cat > /dev/null | {k:.2f} | {gb/k:.1f} | 1.00 |")
print(f"| gxsort reduce --op sum --device cuda | {r1:.2f} | {gb/r1:.1f} | {k/r1:.2f} |")
print(f"| gxsort reduce --op sum --device cpu | {r2:.2f} | {gb/r2:.1f} | {k/r2:.2f} |")
PY
rm -f "$work/in8" "$work/in4"

if [ "${BIG:-1}" = 1 ]; then
  step "out of core: 16 GiB u64, --device-memory 2G --memory 4G, vs two cp"
  "$g" gen -o "$work/in16" --count 2147483648 --seed 5 -q
  c1=$(timeit cp "$work/in16" "$work/cp"); rm -f "$work/cp"
  c2=$(timeit cp "$work/in16" "$work/cp"); rm -f "$work/cp"
  "$g" plan "$work/in16" --device cuda --device-memory 2G --memory 4G -T "$work" | tail -8
  s1=$(timeit "$g" sort "$work/in16" -o "$work/o16" --device cuda --device-memory 2G --memory 4G -T "$work" --stats-json "$out/sort16_gpu_stats.json")
  "$g" check "$work/o16" -q || echo "CHECK FAILED"
  rm -f "$work/o16"
  s2=$(timeit "$g" sort "$work/in16" -o "$work/o16" --device cpu --memory 4G -T "$work" --stats-json "$out/sort16_cpu_stats.json")
  rm -f "$work/o16" "$work/in16"
  python3 - "$c1" "$c2" "$s1" "$s2" <<'PY'
import sys
c1, c2, s1, s2 = map(float, sys.argv[1:]); two = c1 + c2
print(f"| 16 GiB u64, --memory 4G | s | ratio to two cp ({c1:.2f} + {c2:.2f}) |")
print("|---|---|---|")
print(f"| two cp | {two:.2f} | 1.00 |")
print(f"| gxsort sort --device cuda --device-memory 2G | {s1:.2f} | {s1/two:.2f} |")
print(f"| gxsort sort --device cpu | {s2:.2f} | {s2/two:.2f} |")
PY
fi
for f in "$out"/*stats.json; do echo "$(basename "$f"): $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['mode'], d['runs'], 'runs', [(p['name'], round(p['seconds'],2)) for p in d['phases']])" "$f")"; done
rm -rf "$work"
