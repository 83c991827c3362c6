// Google Benchmark kernels that recorded the google_benchmark fixtures (see README.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

static std::vector<int> shuffled(std::int64_t n) {
  std::vector<int> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<int>(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(42));
  return v;
}

static void BM_Sort(benchmark::State& state) {
  const auto data = shuffled(state.range(0));
  for (auto _ : state) {
    auto v = data;
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Sort)->RangeMultiplier(2)->Range(1 << 10, 1 << 15)->Complexity(benchmark::oNLogN);

// Erasing the front element moves all the others: draining n elements is O(n^2).
static void BM_PopFront(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<int> v(state.range(0), 1);
    while (!v.empty()) v.erase(v.begin());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_PopFront)->RangeMultiplier(2)->Range(1 << 10, 1 << 15)->Complexity();

// Two range arguments (BM_Grid/64/8): k sorts of n elements, O(n k log n).
static void BM_Grid(benchmark::State& state) {
  const auto data = shuffled(state.range(0));
  for (auto _ : state) {
    for (std::int64_t j = 0; j < state.range(1); ++j) {
      auto v = data;
      std::sort(v.begin(), v.end());
      benchmark::DoNotOptimize(v.data());
    }
  }
  state.SetComplexityN(state.range(0) * state.range(1));
}
BENCHMARK(BM_Grid)
    ->ArgsProduct({{64, 128, 256, 512, 1024}, {1, 2, 4, 8, 16}})
    ->Complexity(benchmark::oNLogN);

// A run that reports an error at its largest sizes (SkipWithError): error_occurred rows.
static void BM_Scratch(benchmark::State& state) {
  if (state.range(0) > (1 << 13)) {
    state.SkipWithError("needs more scratch memory than this runner has");
    return;
  }
  const auto data = shuffled(state.range(0));
  for (auto _ : state) {
    std::int64_t sum = 0;
    for (int x : data) sum += x;
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_Scratch)->RangeMultiplier(2)->Range(1 << 8, 1 << 15);

BENCHMARK_MAIN();
