#!/usr/bin/env bash
# Re-records every fixture in this folder with the real tools (see README.md):
#   apt-get install hyperfine libbenchmark-dev g++  and  pip install pytest-benchmark
# Run from anywhere: tests/data/formats/recorded/record.sh [PYTHON]
set -euo pipefail
cd "$(dirname "$0")"
python="${1:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# pytest-benchmark: --benchmark-json always carries every round's time (stats.data)...
"$python" -m pytest -q -p no:cacheprovider bench_kernels.py -k "test_sum or test_drain" \
  --benchmark-max-time=0.02 --benchmark-storage="file://$work/json" \
  --benchmark-json=pytest_benchmark_json.json
# ...a saved run only with --benchmark-save-data; two numeric parameters (test_grid[n=64-k=8]).
"$python" -m pytest -q -p no:cacheprovider bench_kernels.py -k test_grid \
  --benchmark-max-time=0.002 --benchmark-storage="file://$work/with" \
  --benchmark-save=grid --benchmark-save-data
cp "$work"/with/*/0001_grid.json pytest_benchmark_saved_data.json
# Without it the saved file has the statistics only; a text parameter (kind) as well.
"$python" -m pytest -q -p no:cacheprovider bench_kernels.py -k test_pop_front \
  --benchmark-max-time=0.01 --benchmark-storage="file://$work/without" \
  --benchmark-save=pop_front
cp "$work"/without/*/0001_pop_front.json pytest_benchmark_saved.json

# Google Benchmark (Debian's libbenchmark-dev), Complexity() rows _BigO and _RMS included.
g++ -O2 -std=c++17 gbench.cc -o "$work/gbench" -lbenchmark -lpthread
"$work/gbench" --benchmark_filter='BM_(Sort|PopFront)' --benchmark_repetitions=5 \
  --benchmark_min_time=0.05 --benchmark_format=json > google_benchmark_repeated.json
"$work/gbench" --benchmark_filter='BM_(Sort|PopFront)' --benchmark_min_time=0.1 \
  --benchmark_out=google_benchmark_single.json --benchmark_out_format=json > /dev/null
"$work/gbench" --benchmark_filter=BM_Grid --benchmark_repetitions=3 \
  --benchmark_min_time=0.02 --benchmark_format=json > google_benchmark_grid.json
# Aggregates only: no iteration rows, the median (and mean, stddev, cv) of each size.
"$work/gbench" --benchmark_filter='BM_(Sort|PopFront)' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.05 \
  --benchmark_format=json > google_benchmark_aggregates.json

# A run that reports an error at its largest sizes: error_occurred rows, left out with a note.
"$work/gbench" --benchmark_filter=BM_Scratch --benchmark_repetitions=3 \
  --benchmark_min_time=0.05 --benchmark_format=json > google_benchmark_failed.json

# hyperfine: a parameter scan over two commands, and a -L list with a text parameter.
hyperfine --shell=none --runs 5 --parameter-scan n 5000 40000 -D 5000 \
  --export-json hyperfine_scan.json "python3 drain.py list {n}" "python3 drain.py deque {n}"
hyperfine --shell=none --runs 5 -L kind list,deque -L n 4000,8000,16000,32000,64000 \
  --export-json hyperfine_list.json "python3 drain.py {kind} {n}"
