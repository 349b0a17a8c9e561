// The device-resident sorts: each load() copies a slice in and prepares its keys; sort()
// sorts them all; each unload() copies a sorted slice out. The backend stays locked for
// the sort's lifetime (it may use the whole budget).
//
// Flat keys: load() transforms the keys into order words, sort() runs the radix sort over
// the bits that differ and transforms back.
#include <algorithm>

#include "cuda_backend.cuh"
#include "sort/sort_dispatch.cuh"
#include "sort/sort_kernels.cuh"

namespace gxsort::cuda {

// What both share: the locked backend, the sort's context, and where the sorted
// records are (out_), which unload() copies from.
class ResidentSort : public DeviceResidentSort {
 public:
  ResidentSort(CudaBackend& b, const Format& f, size_t n)
      : b_(b), f_(f), n_(n), lock_(b.sort_mu_), c_(b.sort_context()) {
    b_.set_device();
  }
  // The derived buffers are returned to the arena just before this drain: nothing can
  // allocate them again before it ends (freeing is bookkeeping only).
  ~ResidentSort() override { b_.drain(); }

  void unload(unsigned char* host, size_t first, size_t count) override {
    b_.set_device();  // callers may be other threads (the chunk scheduler's stages)
    const size_t R = f_.record_size;
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host, out_ + first * R, count * R, cudaMemcpyDeviceToHost, c_.s[0]));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c_.s[0]));
  }

 protected:
  DeviceMemory& mem() { return *b_.mem_; }
  void set_device() { b_.set_device(); }

  CudaBackend& b_;
  Format f_;
  size_t n_;
  std::lock_guard<std::mutex> lock_;
  SortContext c_;
  unsigned char* out_ = nullptr;
};

template <class K>
class ResidentFlatSort final : public ResidentSort {
 public:
  ResidentFlatSort(CudaBackend& b, const Format& f, size_t n) : ResidentSort(b, f, n) {
    keys0_ = mem().allocate(std::max<size_t>(n * sizeof(K), 1), "flat keys");
    keys1_ = mem().allocate(std::max<size_t>(n * sizeof(K), 1), "flat keys (radix sort double buffer)");
    c_.take_bits(bits_);
    c_.reset_bits(c_.s[0]);
    out_ = static_cast<unsigned char*>(keys0_.get());
  }

  void load(const unsigned char* host, size_t first, size_t count) override {
    set_device();
    K* keys = static_cast<K*>(keys0_.get()) + first;
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(keys, host, count * sizeof(K), cudaMemcpyHostToDevice, c_.s[0]));
    launch_order_flat<K>(keys, count, f_.key_type, f_.reverse, c_.bits, c_.grid(count), c_.s[0]);
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c_.s[0]));  // the host slot is free again
  }

  void sort() override {
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
  }

 private:
  DeviceAllocation keys0_, keys1_, bits_;
};

// Records: each load() copies a slice in and builds its first pass's key words; sort()
// runs the passes and gathers the records by the permutation into a second buffer.
class ResidentRecordSort final : public ResidentSort {
 public:
  ResidentRecordSort(CudaBackend& b, const Format& f, size_t n) : ResidentSort(b, f, n) {
    allocate_record_sort(c_, f_, n_, w_);
    c_.reset_bits(c_.s[0]);
    out_ = static_cast<unsigned char*>(w_.records_in.get());
  }

  void load(const unsigned char* host, size_t first, size_t count) override {
    set_device();
    const size_t R = f_.record_size;
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(out_ + first * R, host, count * R, cudaMemcpyHostToDevice, c_.s[0]));
    extract_first_keys(c_, f_, out_, w_, first, first + count, c_.s[0]);
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c_.s[0]));  // the host slot is free again
  }

  void sort() override {
    set_device();
    // Null when no pass reordered anything: the records are in order where they are.
    if (const uint32_t* perm = sort_record_passes(c_, f_, nullptr, n_, w_))
      out_ = gather_sorted_records(c_, f_, n_, perm, w_);
  }

 private:
  SortBuffers w_;
};

std::unique_ptr<DeviceResidentSort> CudaBackend::begin_resident_sort(const Format& f, size_t n) {
  if (n < 2 || n > max_chunk_records(f)) return nullptr;
  if (!f.flat()) return std::make_unique<ResidentRecordSort>(*this, f, n);
  if (f.key_bytes == 4) return std::make_unique<ResidentFlatSort<uint32_t>>(*this, f, n);
  return std::make_unique<ResidentFlatSort<uint64_t>>(*this, f, n);
}

}  // namespace gxsort::cuda
