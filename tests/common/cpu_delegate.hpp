// A backend with only the calls every backend must have, each handed to the CPU backend:
// the base for test backends that add or leave out one capability (the base class's
// default sort_into; a device's windowed merge run on the CPU).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "graph/graph.hpp"

namespace gxsort_test {

class CpuDelegate : public gxsort::Backend {
 public:
  std::string name() const override { return "cpu delegate (test)"; }
  gxsort::HostBuffer allocate_host(size_t bytes) override { return cpu_->allocate_host(bytes); }
  size_t sort_scratch_bytes(const gxsort::Format& f, size_t n) const override { return cpu_->sort_scratch_bytes(f, n); }
  void sort_chunk(const gxsort::Format& f, unsigned char* r, size_t n, unsigned char* s) override {
    cpu_->sort_chunk(f, r, n, s);
  }
  gxsort::ReducePartial reduce_chunk(const gxsort::Format& f, const unsigned char* r, size_t n, uint64_t first,
                                     gxsort::ReduceAlgo algo) override {
    return cpu_->reduce_chunk(f, r, n, first, algo);
  }
  std::vector<gxsort::graph::BfsRun> bfs(const gxsort::graph::CsrGraph& g, const std::vector<uint64_t>& sources,
                                         const gxsort::graph::BfsDevicePlan& plan) override {
    return cpu_->bfs(g, sources, plan);
  }

 private:
  std::unique_ptr<gxsort::Backend> cpu_ = gxsort::make_cpu_backend(2);
};

}  // namespace gxsort_test
