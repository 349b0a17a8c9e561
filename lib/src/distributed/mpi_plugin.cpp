// load_mpi_comm: the MPI plugin (libgxsort-mpi.so, distributed/mpi_comm.cpp) opened with
// dlopen, so that libmpi is loaded only by a distributed session.
#include <dlfcn.h>

#include "distributed/mpi_comm.hpp"

namespace gxsort::distributed {
namespace {

[[noreturn]] void cannot_load(const std::string& path, const std::string& why) {
  fail_usage(option_ref("distributed") + ": " + path + ": cannot load gxsort's MPI plugin: " + why +
             " (it needs Open MPI 4's libmpi: apt-get install openmpi-bin libopenmpi-dev)");
}

// dlerror()'s line without the plugin's path it may start with (the message names it first).
std::string last_dl_error(const std::string& path) {
  const char* e = ::dlerror();
  std::string line = e ? e : "unknown dlopen error";
  if (line.rfind(path + ": ", 0) == 0) line.erase(0, path.size() + 2);
  return line;
}

}  // namespace

std::unique_ptr<Comm> load_mpi_comm(const std::string& path, int* argc, char*** argv) {
  // RTLD_LOCAL: MPI's symbols stay out of the process's global scope. Never closed: the
  // Comm's code lives in it, and MPI is not made to be unloaded.
  void* plugin = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!plugin) cannot_load(path, last_dl_error(path));
  auto* version = reinterpret_cast<MpiPluginVersionFn*>(::dlsym(plugin, kMpiPluginVersionSymbol));
  auto* make = reinterpret_cast<MakeMpiCommFn*>(::dlsym(plugin, kMakeMpiCommSymbol));
  if (!version || !make) cannot_load(path, "not gxsort's MPI plugin (" + last_dl_error(path) + ")");
  if (std::string(version()) != GXSORT_VERSION)
    cannot_load(path, std::string("it was built for gxsort ") + version() + ", this is gxsort " + GXSORT_VERSION);
  return std::unique_ptr<Comm>(make(argc, argv));
}

}  // namespace gxsort::distributed
