#!/usr/bin/env bash
set -u
export PYTHONPATH=$PWD/.gpu-carry/py
s=$(date +%s)
(cd tests/python && timeout 330 python3 -m pytest -q -p no:cacheprovider -rs -x . > $OUT/pytest.log 2>&1); echo "pytest rc=$? $(( $(date +%s)-s )) s"; tail -25 $OUT/pytest.log
timeout 170 python3 tools/bench/python_peers.py --only calls,cupy-calls 2>&1 | tee $OUT/calls.log | tail -30
