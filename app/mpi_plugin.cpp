#include "mpi_plugin.hpp"

#include <filesystem>
#include <system_error>

#include "gxsort/error.hpp"

namespace gxsort::cli {

namespace fs = std::filesystem;

std::string mpi_plugin_path() {
#ifdef GXSORT_MPI_PLUGIN_FROM_BIN
  const char* name = "libgxsort-mpi.so";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(ExitCode::io, "/proc/self/exe: " + ec.message() + " (--distributed finds its MPI plugin from it)");
  const fs::path beside = exe.parent_path() / name;
  const fs::path installed = (exe.parent_path() / GXSORT_MPI_PLUGIN_FROM_BIN / name).lexically_normal();
  for (const fs::path& p : {beside, installed})
    if (fs::exists(p, ec)) return p.string();
  fail_usage("--distributed: gxsort's MPI plugin " + std::string(name) + " is in neither " +
             beside.parent_path().string() + " nor " + installed.parent_path().string() +
             " (it is built and installed with gxsort where Open MPI is found: apt-get install openmpi-bin "
             "libopenmpi-dev, then build and install gxsort again)");
#else
  return "";  // built without MPI: the session refuses --distributed
#endif
}

}  // namespace gxsort::cli
