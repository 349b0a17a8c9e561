// DistributedSession: the MPI job this process belongs to, and how it ends after an error.
#include <unistd.h>

#include <algorithm>

#include "distributed/comm.hpp"
#include "distributed/mpi_comm.hpp"
#include "gxsort/distributed.hpp"
#include "device/backend_select.hpp"
#include "engine/engine.hpp"
#include "gxsort/signals.hpp"
#include "platform/sizes.hpp"

namespace gxsort {

bool distributed_built() { return GXSORT_HAVE_MPI != 0; }

DistributedSession::DistributedSession(int* argc, char*** argv, const std::string& mpi_plugin) {
#if GXSORT_HAVE_MPI
  comm_ = distributed::load_mpi_comm(mpi_plugin, argc, argv);
#else
  (void)argc;
  (void)argv;
  (void)mpi_plugin;
  fail_usage(option_ref("distributed") + ": this gxsort was built without MPI (GXSORT_MPI=OFF, or no Open MPI found when it was "
             "built: apt-get install libopenmpi-dev openmpi-bin, then build again)");
#endif
}

DistributedSession::DistributedSession(std::unique_ptr<distributed::Comm> comm) : comm_(std::move(comm)) {}

DistributedSession::~DistributedSession() = default;

int DistributedSession::rank() const { return comm_->rank(); }
int DistributedSession::size() const { return comm_->size(); }

EngineOptions distributed_rank_options(EngineOptions opt, int host_rank, int host_size, bool threads_given) {
  const unsigned share = unsigned(std::max(1, host_size));
  opt.device_index = unsigned(std::max(0, host_rank));
  if (!opt.memory.given) {
    opt.memory.bytes = host_budget(opt, share);  // the one-process commands' resolve, shared
    opt.memory.given = true;
  }
  if (!threads_given) {
    const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    opt.threads = std::max(1u, std::min(default_threads(), unsigned(std::max(1L, cores)) / share));
  }
  // Ranks that share a GPU share its default budget (80% of its free memory): each
  // reserves its arena at its start, maybe while another does.
  const unsigned gpus = opt.device == Device::cpu || opt.device_memory.given ? 0 : visible_gpus();
  if (gpus) {
    const unsigned mine = opt.device_index % gpus;
    const unsigned sharing = (share - 1 - std::min(mine, share - 1)) / gpus + 1;  // ranks r < share with r mod gpus == mine
    if (sharing > 1) {
      opt.device_memory.percent = 80.0 / sharing;
      opt.device_memory.given = true;
    }
  }
  return opt;
}

EngineOptions DistributedSession::rank_options(EngineOptions opt, bool threads_given) const {
  return distributed_rank_options(std::move(opt), comm_->host_rank(), comm_->host_size(), threads_given);
}

void DistributedSession::collectively(const std::function<void()>& work) { comm_->collectively(work); }

bool DistributedSession::reports_failure() {
  distributed::Comm& c = *comm_;
  // What no destructor removes before the caller's _Exit or MPI_Abort: the process's own
  // list of the directories it wrote to (io/temp_files.hpp). Its other temp files went
  // as it unwound.
  remove_all_temps_now();  // gxsort/signals.hpp
  if (c.failed_rank() < 0) return true;  // the others may be inside a collective: now
  c.barrier();                           // every rank has unwound: its temp files are gone
  if (c.failed_rank() == c.rank()) return true;
  c.barrier();                           // never passed: the failing rank's MPI_Abort ends this one
  return false;
}

void DistributedSession::abort_job(ExitCode code) { comm_->abort_job(int(code)); }

}  // namespace gxsort
