// gxsort._core: the extension module under the gxsort package (python/gxsort/). The
// Python code maps dtypes and keyword arguments; these bindings call the library.
#include "call.hpp"
#include "gxsort/signals.hpp"

namespace gxsort::py {
void bind_arrays(nb::module_& m);
void bind_files(nb::module_& m);
}  // namespace gxsort::py

NB_MODULE(_core, m) {
  // The file calls map their inputs: a file that shrinks under them must fail the call,
  // not kill the interpreter with SIGBUS. The guard passes any other SIGBUS (Python's
  // faulthandler's) to the handler installed before it.
  gxsort::install_mapping_guard();
  gxsort::py::register_errors(m);
  gxsort::py::bind_arrays(m);
  gxsort::py::bind_files(m);
}
