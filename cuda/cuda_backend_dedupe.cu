// CudaBackend: the key bitmap of the dedupe command in device memory. Chunks are copied
// in and their bits set on the device; the set bits come back as sorted keys in pieces
// through two pinned buffers (the host writes piece i while the device makes piece i+1).
// Only the tiles between the smallest and the largest key seen are scanned and read back.
#include <algorithm>

#include "bitmap_dedupe.cuh"
#include "cuda_backend.cuh"
#include "cuda_check.cuh"
#include "pinned_pool.cuh"
#include "kernels/key_bitmap.hpp"

namespace gxsort::cuda {
namespace {

using P = BitmapPolicy;
constexpr size_t kOutKeys = size_t(16) << 20;  // keys per output piece (64 MiB: few, large file writes)

class GpuKeyBitmap final : public KeyBitmap {
 public:
  GpuKeyBitmap(int device, const Format& f, size_t chunk_records, DeviceAllocation bits, DeviceAllocation work,
               DeviceAllocation staging, DeviceAllocation out0, DeviceAllocation out1)
      : device_(device), f_(f), chunk_records_(std::max<size_t>(chunk_records, 1)), bits_(std::move(bits)),
        work_(std::move(work)), staging_(std::move(staging)) {
    out_[0] = std::move(out0);
    out_[1] = std::move(out1);
    GXSORT_CUDA_CHECK(cudaSetDevice(device_));
    GXSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (auto& e : events_) GXSORT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    bitmap_clear(words(), stream_);
    bitmap_range_reset(work_.get(), stream_);
  }
  ~GpuKeyBitmap() override {
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_);  // no queued work may outlive the buffers
    for (auto& e : events_) if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  void add(const unsigned char* keys, size_t n) override {
    GXSORT_CUDA_CHECK(cudaSetDevice(device_));
    auto* staging = static_cast<uint32_t*>(staging_.get());
    for (size_t i = 0; i < n; i += chunk_records_) {
      const size_t m = std::min(chunk_records_, n - i);
      GXSORT_CUDA_CHECK(cudaMemcpyAsync(staging, keys + i * 4, m * 4, cudaMemcpyHostToDevice, stream_));
      bitmap_set(words(), staging, m, f_.key_type, f_.reverse, work_.get(), stream_);
    }
    // The slot buffer goes back to the reader once the copies are done.
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  uint64_t extract(const std::function<void(const unsigned char*, size_t)>& sink) override {
    GXSORT_CUDA_CHECK(cudaSetDevice(device_));
    const BitmapTiles tl = bitmap_tiles(work_.get(), stream_);
    if (tl.size() == 0) return 0;
    bitmap_scan(words(), work_.get(), tl, stream_);
    HostBuffer offsets = allocate_pinned((tl.size() + 1) * sizeof(uint64_t));
    auto* off = reinterpret_cast<uint64_t*>(offsets.data());  // off[i]: keys before tile tl.lo + i
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(off, bitmap_offsets(work_.get()), offsets.size(), cudaMemcpyDeviceToHost, stream_));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const size_t tiles = tl.size();
    const uint64_t total = off[tiles];
    HostBuffer host[2] = {allocate_pinned(kOutKeys * 4), allocate_pinned(kOutKeys * 4)};
    size_t tb = 0, piece = 0, prev_keys = 0;  // tiles relative to tl.lo
    bool have_prev = false;
    while (tb < tiles && off[tb] < total) {
      // The most tiles whose keys fit in one piece (a tile holds at most 1024).
      const uint64_t limit = off[tb] + kOutKeys;
      size_t te = size_t(std::upper_bound(off + tb, off + tiles + 1, limit) - off) - 1;
      te = std::max(te, tb + 1);
      const size_t keys = size_t(off[te] - off[tb]);
      const int b = int(piece % 2);
      auto* d_out = static_cast<uint32_t*>(out_[b].get());
      bitmap_write_keys(words(), bitmap_offsets(work_.get()), tl, tl.lo + tb, tl.lo + te, off[tb], d_out, f_.key_type,
                        f_.reverse, false, stream_);
      GXSORT_CUDA_CHECK(cudaMemcpyAsync(host[b].data(), d_out, keys * 4, cudaMemcpyDeviceToHost, stream_));
      GXSORT_CUDA_CHECK(cudaEventRecord(events_[b], stream_));
      if (have_prev) sink(host[1 - b].data(), prev_keys * 4);  // overlaps this piece on the device
      GXSORT_CUDA_CHECK(cudaEventSynchronize(events_[b]));
      have_prev = true;
      prev_keys = keys;
      ++piece;
      tb = te;
    }
    if (have_prev) sink(host[(piece - 1) % 2].data(), prev_keys * 4);
    return total;
  }

 private:
  uint32_t* words() const { return static_cast<uint32_t*>(bits_.get()); }
  int device_;
  Format f_;
  size_t chunk_records_;
  DeviceAllocation bits_, work_, staging_, out_[2];
  cudaStream_t stream_ = nullptr;
  cudaEvent_t events_[2] = {nullptr, nullptr};
};

}  // namespace

std::unique_ptr<KeyBitmap> CudaBackend::make_key_bitmap(const Format& f, size_t chunk_records, uint64_t) {
  if (!bitmap_format_ok(f)) return nullptr;
  set_device();
  chunk_records = std::max<size_t>(1, std::min<size_t>(chunk_records, size_t(16) << 20));
  const size_t need = DeviceMemory::round_up(P::kWords * 4) + DeviceMemory::round_up(bitmap_scan_bytes()) +
                      DeviceMemory::round_up(chunk_records * 4) + 2 * DeviceMemory::round_up(kOutKeys * 4);
  if (need > mem_->largest_free()) return nullptr;
  try {
    DeviceAllocation bits = mem_->allocate(P::kWords * 4, "key bitmap");
    DeviceAllocation work = mem_->allocate(bitmap_scan_bytes(), "key bitmap scan");
    DeviceAllocation staging = mem_->allocate(chunk_records * 4, "key bitmap input");
    DeviceAllocation o0 = mem_->allocate(kOutKeys * 4, "key bitmap output");
    DeviceAllocation o1 = mem_->allocate(kOutKeys * 4, "key bitmap output");
    return std::make_unique<GpuKeyBitmap>(int(device_), f, chunk_records, std::move(bits), std::move(work),
                                          std::move(staging), std::move(o0), std::move(o1));
  } catch (const Error& e) {
    if (e.code() == ExitCode::io) return nullptr;  // fragmented arena: the caller falls back
    throw;
  }
}

}  // namespace gxsort::cuda
