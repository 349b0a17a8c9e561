// The sort command's in-memory plan (PlanMode::in_memory), its two paths: the device's
// resident sort, and the mapped input sorted into the mapped output.
#pragma once
#include <cstdint>

#include "backend/backend.hpp"
#include "engine/engine.hpp"
#include "io/mapped_file.hpp"
#include "io/output.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort {

// Unmaps a mapping on its own thread; the destructor waits for it.
class BackgroundUnmap {
 public:
  void start(io::MappedFile m) {
    thread_ = parallel::OwnThread([m = std::move(m)]() mutable { m.unmap(); });
  }

 private:
  parallel::OwnThread thread_;
};

// An in-memory sort on a device that holds all the records (Backend::begin_resident_sort),
// into `out`; the phases go to `st`. Returns the output bytes.
uint64_t sort_resident(Prepared& p, DeviceResidentSort& resident, const io::File& in, const EngineOptions& opt,
                       io::Output& out, RunStats& st);

// The in-memory sort on the host: the mapped input sorted into the mapped output; the
// input's mapping is handed to `input_unmap`. Returns the output bytes.
uint64_t sort_mapped(Prepared& p, const io::File& in, const EngineOptions& opt, io::Output& out,
                     BackgroundUnmap& input_unmap, RunStats& st);

}  // namespace gxsort
