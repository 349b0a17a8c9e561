#!/usr/bin/env bash
set -u
B=.gpu-carry/bin
s=$(date +%s)
$B/gxsort_cuda_tests > $OUT/cuda.log 2>&1; echo "cuda tests rc=$? $(( $(date +%s)-s )) s"; tail -4 $OUT/cuda.log
grep -B2 -A12 'ERROR\|FAILED' $OUT/cuda.log | head -60
BUILD=$B SUITES=0 timeout 330 bash tools/gpu-check.sh tests > $OUT/e2e.log 2>&1; echo "e2e rc=$?"; tail -12 $OUT/e2e.log; grep FAIL $OUT/e2e.log | head
