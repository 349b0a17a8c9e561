// run_released and the translation of library errors (call.hpp).
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "call.hpp"

namespace gxsort::py {
namespace {

// What the worker and the watching thread share.
struct Shared {
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  std::exception_ptr error;
  std::optional<Progress> progress;  // the newest report not yet delivered
};

// The Python exception class of an error (gxsort/_errors.py).
nb::object exception_class(const Error& e) {
  const char* name = "ResourceError";
  if (e.code() == ExitCode::usage) name = "InputError";
  else if (e.code() == ExitCode::device) name = "DeviceError";
  return nb::module_::import_("gxsort._errors").attr(name);
}

// Hands the newest progress report, if any, to `callback` (the GIL held).
void deliver(Shared& s, nb::handle callback, std::unique_lock<std::mutex>& lock) {
  if (!s.progress || !callback || callback.is_none()) return;
  const Progress p = *s.progress;
  s.progress.reset();
  lock.unlock();
  callback(std::string(p.phase), p.done, p.total);
  lock.lock();
}

}  // namespace

void run_released(const std::function<void(const CancelToken&, const ProgressFn&)>& work, nb::handle progress) {
  auto shared = std::make_shared<Shared>();
  auto token = std::make_shared<CancelToken>();
  const ProgressFn report = [shared](const Progress& p) {
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->progress = p;
    shared->changed.notify_all();
  };
  std::thread worker([shared, token, work, report] {
    std::exception_ptr error;
    try {
      work(*token, report);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->error = error;
    shared->done = true;
    shared->changed.notify_all();
  });
  std::unique_lock<std::mutex> lock(shared->mutex);
  while (!shared->done) {
    {
      nb::gil_scoped_release unlocked;
      // Woken by progress and by the end; the timeout is how often signals are looked at.
      shared->changed.wait_for(lock, std::chrono::milliseconds(50));
    }
    try {
      deliver(*shared, progress, lock);
      lock.unlock();
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      lock.lock();
    } catch (...) {  // Ctrl-C, or the progress callback raised: stop the work, then raise it
      if (lock.owns_lock()) lock.unlock();
      token->cancel();
      {
        nb::gil_scoped_release unlocked;
        worker.join();
      }
      throw;
    }
  }
  lock.unlock();
  worker.join();
  if (shared->error) std::rethrow_exception(shared->error);
}

void run_call(size_t bytes, size_t watched_from, const std::function<void(const CancelToken&, const ProgressFn&)>& work,
              nb::handle progress) {
  if (bytes >= watched_from || (progress && !progress.is_none())) return run_released(work, progress);
  const CancelToken never;
  nb::gil_scoped_release unlocked;
  work(never, ProgressFn());
}

void register_errors(nb::module_& m) {
  (void)m;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Cancelled&) {
      PyErr_SetString(PyExc_KeyboardInterrupt, "gxsort: cancelled");
    } catch (const Error& e) {  // its options named as this package's keywords ("memory=")
      PyErr_SetString(exception_class(e).ptr(), spell_options(e.message(), OptionStyle::python).c_str());
    }
  });
}

}  // namespace gxsort::py
