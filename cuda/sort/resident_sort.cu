// The device-resident sorts: each load() copies a slice in and prepares its keys; sort()
// sorts them all; each unload() copies a sorted slice out. The backend stays locked for
// the sort's lifetime (it may use the whole budget).
//
// Flat keys: load() transforms the keys into order words, sort() runs the radix sort over
// the bits that differ and transforms back.
//
// Both also serve the distributed sort's exchange between the GPUs of one host
// (backend/peer_sort.hpp): the sorted records are shared whole through the arena's CUDA
// IPC handle and an offset, and a receiver loads from them device to device.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "backend/peer_sort.hpp"
#include "cuda_backend.cuh"
#include "sort/sort_dispatch.cuh"
#include "sort/sort_kernels.cuh"

namespace gxsort::cuda {

namespace {

// What a handle names: the arena of a process (its IPC handle) and an offset in it.
struct SharedRecords {
  cudaIpcMemHandle_t arena;
  uint64_t offset;
  uint64_t process;  // the sharing process (this_process()): its own handle cannot be opened, it reads in place
};

// A token of this process, random: process ids repeat across PID namespaces (ranks in
// containers of one host), and reading another process's offset in our own arena would
// be silently wrong.
uint64_t this_process() {
  static const uint64_t token = [] {
    std::random_device rd;
    return (uint64_t(rd()) << 32 ^ uint64_t(rd())) ^ uint64_t(::getpid());
  }();
  return token;
}

}  // namespace

// What both share: the backend's hold (it may use the whole budget), the sort's context,
// where the unsorted records go (load_target) and the sorted ones are (out_), which
// unload() and the peers copy from.
class ResidentSort : public PeerReceiver, public PeerSharedSort {
 public:
  ResidentSort(CudaBackend& b, const Format& f, size_t n, std::unique_lock<std::mutex> hold)
      : b_(b), f_(f), n_(n), hold_(std::move(hold)), c_(b.sort_context()) {
    b_.set_device();
  }
  // The derived buffers are returned to the arena just before this drain: nothing can
  // allocate them again before it ends (freeing is bookkeeping only).
  ~ResidentSort() override {
    close_peers();
    b_.drain();
  }

  void load(const unsigned char* host, size_t first, size_t count) override {
    set_device();
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(load_target(first), host, count * f_.record_size, cudaMemcpyHostToDevice, c_.s[0]));
    prepare(first, count);
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c_.s[0]));  // the host slot is free again
  }

  bool open(const std::string& handle) override {
    set_device();
    try {
      open_peer(handle);
      return true;
    } catch (const Error&) {
      (void)cudaGetLastError();  // IPC and peer errors leave the context usable: clear it
      return false;
    }
  }

  void load_from(const std::string& handle, size_t src_first, size_t first, size_t count) override {
    set_device();
    const unsigned char* src = open_peer(handle) + src_first * f_.record_size;
    // Unified addressing finds the devices; the arena was opened with lazy peer access
    // (an explicit cudaDeviceEnablePeerAccess and cudaMemcpyPeerAsync measured slower on
    // the 2x H200 host: docs/benchmarks.md, twelfth session).
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(load_target(first), src, count * f_.record_size, cudaMemcpyDefault, c_.s[0]));
    prepare(first, count);
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c_.s[0]));
  }

  // Callers may be other threads, several at once (the chunk scheduler's stages, the
  // output's parts: engine/resident_output.hpp): each copies on its own thread's stream,
  // so that none waits for the others' copies. sort() ended with its streams synchronized.
  void unload(unsigned char* host, size_t first, size_t count) override {
    b_.set_device();
    const size_t R = f_.record_size;
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host, out_ + first * R, count * R, cudaMemcpyDeviceToHost, cudaStreamPerThread));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  }

  std::string share_sorted() override {
    set_device();
    SharedRecords r;
    GXSORT_CUDA_CHECK(cudaIpcGetMemHandle(&r.arena, mem().base()));
    r.offset = uint64_t(out_ - mem().base());
    r.process = this_process();
    return std::string(reinterpret_cast<const char*>(&r), sizeof r);
  }

  std::unique_ptr<PeerReceiver> receiver(size_t n) override;

 protected:
  DeviceMemory& mem() { return *b_.mem_; }
  void set_device() { b_.set_device(); }
  // Where records [first, ...) of the input go, and what a loaded slice needs then.
  virtual unsigned char* load_target(size_t first) = 0;
  virtual void prepare(size_t first, size_t count) = 0;
  // The loads are over: the peers' arenas are closed before sorting.
  void close_peers() noexcept {
    for (auto& [arena, p] : peers_) cudaIpcCloseMemHandle(p);
    peers_.clear();
  }

  CudaBackend& b_;
  Format f_;
  size_t n_;
  std::unique_lock<std::mutex> hold_;
  SortContext c_;
  unsigned char* out_ = nullptr;

 private:
  // The sorted records a handle names, in this process's address space (the offset
  // added): this process's own arena in place, another's opened once.
  const unsigned char* open_peer(const std::string& handle) {
    SharedRecords r;
    if (handle.size() != sizeof r) throw Error(ExitCode::device, "a peer's device records: malformed handle");
    std::memcpy(&r, handle.data(), sizeof r);
    if (r.process == this_process()) return mem().base() + r.offset;
    const std::string arena(reinterpret_cast<const char*>(&r.arena), sizeof r.arena);
    auto it = peers_.find(arena);
    if (it == peers_.end()) {
      void* p = nullptr;
      GXSORT_CUDA_CHECK(cudaIpcOpenMemHandle(&p, r.arena, cudaIpcMemLazyEnablePeerAccess));
      it = peers_.emplace(arena, static_cast<unsigned char*>(p)).first;
    }
    return it->second + r.offset;
  }

  std::map<std::string, unsigned char*> peers_;  // opened arenas of other processes
};

template <class K>
class ResidentFlatSort final : public ResidentSort {
 public:
  ResidentFlatSort(CudaBackend& b, const Format& f, size_t n, std::unique_lock<std::mutex> hold)
      : ResidentSort(b, f, n, std::move(hold)) {
    keys0_ = mem().allocate(std::max<size_t>(n * sizeof(K), 1), "flat keys");
    keys1_ = mem().allocate(std::max<size_t>(n * sizeof(K), 1), "flat keys (radix sort double buffer)");
    c_.take_bits(bits_);
    c_.reset_bits(c_.s[0]);
    out_ = static_cast<unsigned char*>(keys0_.get());
  }

  void sort() override {
    close_peers();
    set_device();
    K* out = static_cast<K*>(keys0_.get());
    const BitRange r = c_.read_bits();
    if (!r.empty()) {
      cub::DoubleBuffer<K> keys(out, static_cast<K*>(keys1_.get()));
      sort_words<K>(c_, keys, nullptr, n_, r, "flat keys");
      out = keys.Current();
    }
    launch_unorder_flat<K>(out, n_, f_.key_type, f_.reverse, c_.grid(n_), c_.s[0]);
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c_.s[0]));
    out_ = reinterpret_cast<unsigned char*>(out);
    // The other buffer is free now: a receiver of the distributed sort may need it.
    (out_ == keys0_.get() ? keys1_ : keys0_).reset();
  }

 private:
  unsigned char* load_target(size_t first) override { return static_cast<unsigned char*>(keys0_.get()) + first * sizeof(K); }
  void prepare(size_t first, size_t count) override {
    K* keys = static_cast<K*>(keys0_.get()) + first;
    launch_order_flat<K>(keys, count, f_.key_type, f_.reverse, c_.bits, c_.grid(count), c_.s[0]);
  }

  DeviceAllocation keys0_, keys1_, bits_;
};

// Records: each load() copies a slice in and builds its first pass's key words; sort()
// runs the passes and gathers the records by the permutation into a second buffer.
class ResidentRecordSort final : public ResidentSort {
 public:
  ResidentRecordSort(CudaBackend& b, const Format& f, size_t n, std::unique_lock<std::mutex> hold)
      : ResidentSort(b, f, n, std::move(hold)) {
    allocate_record_sort(c_, f_, n_, w_);
    c_.reset_bits(c_.s[0]);
    out_ = static_cast<unsigned char*>(w_.records_in.get());
  }

  void sort() override {
    close_peers();
    set_device();
    // Null when no pass reordered anything: the records are in order where they are.
    if (const uint32_t* perm = sort_record_passes(c_, f_, nullptr, n_, w_))
      out_ = gather_sorted_records(c_, f_, n_, perm, w_);
  }

 private:
  unsigned char* load_target(size_t first) override { return out_ + first * f_.record_size; }
  void prepare(size_t first, size_t count) override { extract_first_keys(c_, f_, out_, w_, first, first + count, c_.s[0]); }

  SortBuffers w_;
};

namespace {
std::unique_ptr<ResidentSort> make_resident(CudaBackend& b, const Format& f, size_t n, std::unique_lock<std::mutex> hold) {
  if (!f.flat()) return std::make_unique<ResidentRecordSort>(b, f, n, std::move(hold));
  if (f.key_bytes == 4) return std::make_unique<ResidentFlatSort<uint32_t>>(b, f, n, std::move(hold));
  return std::make_unique<ResidentFlatSort<uint64_t>>(b, f, n, std::move(hold));
}
}  // namespace

std::unique_ptr<PeerReceiver> ResidentSort::receiver(size_t n) {
  if (n < 2 || n > b_.max_chunk_records(f_)) return nullptr;
  return make_resident(b_, f_, n, std::move(hold_));
}

std::unique_ptr<DeviceResidentSort> CudaBackend::begin_resident_sort(const Format& f, size_t n) {
  if (n < 2 || n > max_chunk_records(f)) return nullptr;
  return make_resident(*this, f, n, std::unique_lock<std::mutex>(sort_mu_));
}

}  // namespace gxsort::cuda
