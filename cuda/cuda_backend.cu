// The CUDA backend's run formation: sort_chunk on the GPU with CUB's stable LSD radix sort.
//
// Two paths (docs/cuda-backend.md has the longer story):
//  - flat typed keys: copy the keys in, turn them into order words in place (order32 /
//    order64 from format.hpp), cub::DeviceRadixSort::SortKeys, turn them back, copy out.
//    The transform is a bijection, so equal order words are equal bytes and the output
//    is byte-identical to any stable host sort.
//  - records: copy the records in, build (key word, record index) pairs, SortPairs, then
//    gather whole records by the sorted index into a second buffer and copy that out.
//    Keys wider than 8 bytes are sorted LSD by word: the key is cut into 8-byte
//    big-endian segments, and the segments are sorted last to first with a stable sort
//    that carries the permutation, so ties on a segment keep the order of the later ones.
//
// Every key-building kernel also folds the AND and OR of the words it wrote. Bits that
// are equal in every key cannot reorder anything, so the radix sort is given only the
// bit range where keys differ (begin_bit/end_bit): small-range keys and short byte tails
// take fewer radix passes, and a segment that is constant is skipped outright.
#include "cuda_backend.cuh"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <vector>

#include "cuda_check.cuh"
#include "pinned_pool.cuh"

namespace gxsort::cuda {

namespace {

// Tuning constants of run formation, all in one place.
struct SortPolicy {
  // Copy-in and copy-out are cut into slices of this size, alternating between two
  // streams, so the PCIe copy of one slice overlaps the kernel of the previous one.
  static constexpr size_t kSliceBytes = size_t(64) << 20;
  static constexpr int kThreads = 256;      // threads per block of the elementwise kernels
  static constexpr int kBlocksPerSM = 8;    // grid-stride kernels launch at most this many blocks per SM
  // CUB runs with 32-bit offsets and records are indexed by uint32_t: stay well inside.
  static constexpr size_t kMaxRecords = size_t(1) << 31;
  // Allocation rounding of the handful of buffers of one sort (each rounds up to 256 B).
  static constexpr size_t kRoundingSlack = 16 * DeviceMemory::kAlignment;
};

using u32 = uint32_t;
using u64 = uint64_t;

// ---------------------------------------------------------------------------------------
// Key words: what one radix sort pass orders by.

// One LSD pass: the whole typed key, or the byte-key segment [start, start + len).
struct KeyPass {
  size_t start = 0;
  size_t len = 0;
  bool wide = false;  // sorts 64-bit words (else 32-bit)
};

// The passes of a format, least significant first.
std::vector<KeyPass> key_passes(const Format& f) {
  std::vector<KeyPass> passes;
  if (f.key_type != KeyType::bytes) {
    passes.push_back({0, f.key_bytes, f.key_bytes == 8});
    return passes;
  }
  for (size_t s = 0; s < f.key_bytes; s += 8) {
    const size_t len = std::min<size_t>(8, f.key_bytes - s);
    passes.push_back({s, len, len > 4});
  }
  std::reverse(passes.begin(), passes.end());
  return passes;
}

// What a kernel needs to build one pass's key word from a record.
struct KeySpec {
  KeyType type;
  bool reverse;
  bool aligned;     // the key word lies on its natural alignment in every record
  u32 offset;       // of the word in the record
  u32 len;          // bytes of a byte-key segment (1..8)
  size_t record_size;
};

KeySpec key_spec(const Format& f, const KeyPass& p) {
  KeySpec s;
  s.type = f.key_type;
  s.reverse = f.reverse;
  s.offset = u32(f.key_offset + p.start);
  s.len = u32(p.len);
  s.record_size = f.record_size;
  const size_t w = p.wide ? 8 : 4;
  s.aligned = f.key_type != KeyType::bytes && f.record_size % w == 0 && f.key_offset % w == 0;
  return s;
}

template <class T>
__device__ __forceinline__ T load_le(const unsigned char* p, bool aligned) {
  if (aligned) return *reinterpret_cast<const T*>(p);
  T v = 0;
  for (int i = int(sizeof(T)) - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The order word of one record for one pass. Byte segments follow key_prefix in
// format.hpp exactly: big-endian, zero padded on the right, and for --reverse only the
// segment's own bytes are complemented (the padding stays zero).
template <class K>
__device__ __forceinline__ K key_word(const unsigned char* rec, const KeySpec& s) {
  const unsigned char* p = rec + s.offset;
  if (s.type != KeyType::bytes) {
    if constexpr (sizeof(K) == 4) return order32(s.type, load_le<u32>(p, s.aligned), s.reverse);
    else return order64(s.type, load_le<u64>(p, s.aligned), s.reverse);
  }
  u64 v = load_be_prefix(p, s.len);
  if (s.reverse) v = ~v & (s.len >= 8 ? ~u64(0) : ~u64(0) << (64 - 8 * s.len));
  if constexpr (sizeof(K) == 4) return K(v >> 32);
  else return v;
}

// Folds a thread's AND/OR of key words into bits[0] (AND) and bits[1] (OR): a warp
// shuffle reduction, then one atomic pair per block. Every thread of the block calls it.
__device__ void fold_bits(u64 a, u64 o, unsigned long long* bits) {
  for (int d = 16; d > 0; d >>= 1) {
    a &= __shfl_xor_sync(0xffffffffu, a, d);
    o |= __shfl_xor_sync(0xffffffffu, o, d);
  }
  __shared__ u64 wa[32], wo[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) {
    wa[warp] = a;
    wo[warp] = o;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < warps; ++w) {
      a &= wa[w];
      o |= wo[w];
    }
    atomicAnd(&bits[0], (unsigned long long)a);
    atomicOr(&bits[1], (unsigned long long)o);
  }
}

// ---------------------------------------------------------------------------------------
// Kernels: short grid-stride loops; the heavy lifting is CUB's.

template <class K>
__global__ void __launch_bounds__(SortPolicy::kThreads)
    order_flat_kernel(K* keys, size_t n, KeyType t, bool reverse, unsigned long long* bits) {
  u64 a = ~u64(0), o = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    K k;
    if constexpr (sizeof(K) == 4) k = order32(t, keys[i], reverse);
    else k = order64(t, keys[i], reverse);
    keys[i] = k;
    a &= k;
    o |= k;
  }
  fold_bits(a, o, bits);
}

template <class K>
__global__ void __launch_bounds__(SortPolicy::kThreads) unorder_flat_kernel(K* keys, size_t n, KeyType t, bool reverse) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    if constexpr (sizeof(K) == 4) keys[i] = unorder32(t, keys[i], reverse);
    else keys[i] = unorder64(t, keys[i], reverse);
  }
}

// keys[i] = key word of record perm[i] (of record i when perm is null), for i in [lo, hi).
// With `index` set it also writes index[i] = i: the identity permutation of the first pass.
template <class K>
__global__ void __launch_bounds__(SortPolicy::kThreads)
    extract_keys_kernel(const unsigned char* records, const u32* perm, u32* index, K* keys, size_t lo, size_t hi,
                        KeySpec spec, unsigned long long* bits) {
  u64 a = ~u64(0), o = 0;
  for (size_t i = lo + blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < hi; i += size_t(gridDim.x) * blockDim.x) {
    const size_t r = perm ? perm[i] : i;
    const K k = key_word<K>(records + r * spec.record_size, spec);
    keys[i] = k;
    if (index) index[i] = u32(i);
    a &= k;
    o |= k;
  }
  fold_bits(a, o, bits);
}

// dst record i = src record perm[i], for i in [lo, hi), moved in units of U bytes
// (the widest that divides the record size). `units` = record size / sizeof(U). The
// unit index inside a slice fits 32 bits (a slice is at most kSliceBytes), which keeps
// the division cheap.
template <class U>
__global__ void __launch_bounds__(SortPolicy::kThreads)
    gather_kernel(const U* src, U* dst, const u32* perm, size_t lo, size_t hi, u32 units) {
  const u32 total = u32((hi - lo) * units);
  for (u32 g = blockIdx.x * blockDim.x + threadIdx.x; g < total; g += gridDim.x * blockDim.x) {
    const size_t i = lo + g / units;
    const u32 j = g % units;
    dst[i * units + j] = src[size_t(perm[i]) * units + j];
  }
}

// ---------------------------------------------------------------------------------------
// CUB, two-phase: the size query and the sort share one wrapper so they always agree.

template <class K>
cudaError_t radix_sort(void* temp, size_t& temp_bytes, cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<u32>* vals,
                       size_t n, int begin_bit, int end_bit, cudaStream_t s) {
  if (vals)
    return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, *vals, u32(n), begin_bit, end_bit, s);
  return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, u32(n), begin_bit, end_bit, s);
}

template <class K>
size_t radix_temp_bytes(bool pairs, size_t n, int begin_bit, int end_bit) {
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  cub::DoubleBuffer<u32> vals(nullptr, nullptr);
  size_t bytes = 0;
  GXSORT_CUDA_CHECK(radix_sort<K>(nullptr, bytes, keys, pairs ? &vals : nullptr, n, begin_bit, end_bit, nullptr));
  return bytes;
}

size_t radix_temp_bytes(bool wide, bool pairs, size_t n) {
  return wide ? radix_temp_bytes<u64>(pairs, n, 0, 64) : radix_temp_bytes<u32>(pairs, n, 0, 32);
}

// The bit range [begin, end) where the keys of a pass differ; empty when they are all equal.
struct BitRange {
  int begin = 0, end = 0;
  bool empty() const { return begin >= end; }
};

BitRange bit_range(u64 and_bits, u64 or_bits) {
  const u64 diff = and_bits ^ or_bits;
  if (diff == 0) return {};
  return {__builtin_ctzll(diff), 64 - __builtin_clzll(diff)};
}

// Shared state of one sort: streams, the bit accumulator, the arena.
struct Ctx {
  cudaStream_t s[2];
  cudaEvent_t ev;
  DeviceMemory* mem;
  unsigned long long* bits;  // device: [AND, OR]
  u64* bits_host;            // pinned: where they land
  unsigned grid_cap;

  // Make `to` wait for everything queued on `from` so far.
  void join(cudaStream_t from, cudaStream_t to) const {
    GXSORT_CUDA_CHECK(cudaEventRecord(ev, from));
    GXSORT_CUDA_CHECK(cudaStreamWaitEvent(to, ev, 0));
  }
  void reset_bits(cudaStream_t st) const {
    GXSORT_CUDA_CHECK(cudaMemsetAsync(bits, 0xff, sizeof(u64), st));     // AND starts all ones
    GXSORT_CUDA_CHECK(cudaMemsetAsync(bits + 1, 0, sizeof(u64), st));    // OR starts all zeros
  }
  BitRange read_bits() const {  // on s[0], which must already have joined every writer
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(bits_host, bits, 2 * sizeof(u64), cudaMemcpyDeviceToHost, s[0]));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(s[0]));
    return bit_range(bits_host[0], bits_host[1]);
  }
  unsigned grid(size_t items) const {
    const size_t blocks = (items + SortPolicy::kThreads - 1) / SortPolicy::kThreads;
    return unsigned(std::max<size_t>(1, std::min<size_t>(blocks, grid_cap)));
  }
};

// Sort the key words already in keys[0] on s[0] (with the permutation when vals is set),
// over the bits where they differ. Returns the buffers' DoubleBuffer selectors through
// the DoubleBuffers themselves.
template <class K>
void sort_words(const Ctx& c, cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<u32>* vals, size_t n, BitRange r,
                const char* what) {
  size_t temp_bytes = 0;
  GXSORT_CUDA_CHECK(radix_sort<K>(nullptr, temp_bytes, keys, vals, n, r.begin, r.end, c.s[0]));
  DeviceAllocation temp = c.mem->allocate(temp_bytes, std::string("radix sort temp storage (") + what + ")");
  GXSORT_CUDA_CHECK(radix_sort<K>(temp.get(), temp_bytes, keys, vals, n, r.begin, r.end, c.s[0]));
  GXSORT_CUDA_CHECK_LAUNCH("cub::DeviceRadixSort");
  // `temp` goes back to the arena now; later users are queued on s[0] after the sort.
}

template <class K>
void sort_flat_impl(const Ctx& c, const Format& f, unsigned char* host, size_t n, DeviceAllocation& a0,
                    DeviceAllocation& a1) {
  K* keys0 = static_cast<K*>(a0.get());
  K* keys1 = static_cast<K*>(a1.get());
  const size_t slice = SortPolicy::kSliceBytes / sizeof(K);

  c.reset_bits(c.s[0]);
  c.join(c.s[0], c.s[1]);
  for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
    const size_t cnt = std::min(slice, n - lo);
    cudaStream_t st = c.s[k & 1];
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(keys0 + lo, host + lo * sizeof(K), cnt * sizeof(K), cudaMemcpyHostToDevice, st));
    order_flat_kernel<K><<<c.grid(cnt), SortPolicy::kThreads, 0, st>>>(keys0 + lo, cnt, f.key_type, f.reverse, c.bits);
    GXSORT_CUDA_CHECK_LAUNCH("order_flat_kernel");
  }
  c.join(c.s[1], c.s[0]);
  const BitRange r = c.read_bits();
  if (r.empty()) return;  // every key equal: the host copy is already in order

  cub::DoubleBuffer<K> keys(keys0, keys1);
  sort_words<K>(c, keys, nullptr, n, r, "flat keys");
  K* out = keys.Current();

  c.join(c.s[0], c.s[1]);
  for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
    const size_t cnt = std::min(slice, n - lo);
    cudaStream_t st = c.s[k & 1];
    unorder_flat_kernel<K><<<c.grid(cnt), SortPolicy::kThreads, 0, st>>>(out + lo, cnt, f.key_type, f.reverse);
    GXSORT_CUDA_CHECK_LAUNCH("unorder_flat_kernel");
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host + lo * sizeof(K), out + lo, cnt * sizeof(K), cudaMemcpyDeviceToHost, st));
  }
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[1]));
}

template <class K>
void launch_extract(const Ctx& c, cudaStream_t st, const unsigned char* records, const u32* perm, u32* index,
                    void* keys, size_t lo, size_t hi, const KeySpec& spec) {
  extract_keys_kernel<K><<<c.grid(hi - lo), SortPolicy::kThreads, 0, st>>>(records, perm, index, static_cast<K*>(keys),
                                                                           lo, hi, spec, c.bits);
  GXSORT_CUDA_CHECK_LAUNCH("extract_keys_kernel");
}

void extract(const Ctx& c, cudaStream_t st, bool wide, const unsigned char* records, const u32* perm, u32* index,
             void* keys, size_t lo, size_t hi, const KeySpec& spec) {
  if (wide) launch_extract<u64>(c, st, records, perm, index, keys, lo, hi, spec);
  else launch_extract<u32>(c, st, records, perm, index, keys, lo, hi, spec);
}

template <class U>
void launch_gather(const Ctx& c, cudaStream_t st, const void* src, void* dst, const u32* perm, size_t lo, size_t hi,
                   size_t record_size) {
  const u32 units = u32(record_size / sizeof(U));
  gather_kernel<U><<<c.grid((hi - lo) * units), SortPolicy::kThreads, 0, st>>>(
      static_cast<const U*>(src), static_cast<U*>(dst), perm, lo, hi, units);
  GXSORT_CUDA_CHECK_LAUNCH("gather_kernel");
}

void gather(const Ctx& c, cudaStream_t st, const void* src, void* dst, const u32* perm, size_t lo, size_t hi,
            size_t record_size) {
  // The buffers are 256-byte aligned, so a unit that divides the record size is aligned.
  if (record_size % 16 == 0) launch_gather<uint4>(c, st, src, dst, perm, lo, hi, record_size);
  else if (record_size % 8 == 0) launch_gather<uint2>(c, st, src, dst, perm, lo, hi, record_size);
  else if (record_size % 4 == 0) launch_gather<u32>(c, st, src, dst, perm, lo, hi, record_size);
  else if (record_size % 2 == 0) launch_gather<uint16_t>(c, st, src, dst, perm, lo, hi, record_size);
  else launch_gather<uint8_t>(c, st, src, dst, perm, lo, hi, record_size);
}

bool any_wide(const std::vector<KeyPass>& passes) {
  for (const KeyPass& p : passes)
    if (p.wide) return true;
  return false;
}

// Device bytes of one sort under the allocation order sort_chunk uses (first fit):
//  flat:    keys[2], bits, temp
//  records: records_in, vals[2], bits, then keys[2] + temp while sorting, replaced by
//           records_out for the gather (so the peak is the larger of the two).
size_t device_bytes(const Format& f, size_t n, size_t temp) {
  auto r = DeviceMemory::round_up;
  const size_t bits = r(2 * sizeof(u64));
  if (f.flat()) return 2 * r(n * f.key_bytes) + bits + r(temp);
  const size_t key_w = any_wide(key_passes(f)) ? 8 : 4;
  return r(n * f.record_size) + 2 * r(n * sizeof(u32)) + bits +
         std::max(2 * r(n * key_w) + r(temp), r(n * f.record_size));
}

// CUB temp storage of the largest pass (full bit range: narrower ranges need no more).
size_t sort_temp_bytes(const Format& f, size_t n) {
  if (f.flat()) return radix_temp_bytes(f.key_bytes == 8, false, n);
  size_t most = 0;
  bool seen[2] = {false, false};
  for (const KeyPass& p : key_passes(f)) {
    if (seen[p.wide]) continue;
    seen[p.wide] = true;
    most = std::max(most, radix_temp_bytes(p.wide, true, n));
  }
  return most;
}

}  // namespace

// ---------------------------------------------------------------------------------------

struct CudaBackend::Work {
  DeviceAllocation keys[2], vals[2], records_in, records_out, bits;
};

CudaBackend::CudaBackend(unsigned device, const SizeOption& device_memory) : device_(device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= 0) {
    cudaGetLastError();
    throw Error(ExitCode::device, std::string("no usable CUDA device: ") +
                                      (e != cudaSuccess ? cudaGetErrorString(e) : "none visible"));
  }
  if (int(device) >= count)
    throw Error(ExitCode::device, "CUDA device " + std::to_string(device) + " does not exist (" +
                                      std::to_string(count) + " visible)");
  set_device();
  cudaDeviceProp prop;
  GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, int(device)));
  device_name_ = prop.name;
  multiprocessors_ = prop.multiProcessorCount;
  mem_ = std::make_unique<DeviceMemory>(int(device), device_memory);
  for (auto& s : streams_) GXSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GXSORT_CUDA_CHECK(cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming));
  bits_host_ = allocate_pinned(2 * sizeof(u64));
}

CudaBackend::~CudaBackend() {
  cudaSetDevice(int(device_));
  drain();
  if (joined_) cudaEventDestroy(joined_);
  for (auto& s : streams_)
    if (s) cudaStreamDestroy(s);
}

void CudaBackend::set_device() const { GXSORT_CUDA_CHECK(cudaSetDevice(int(device_))); }

void CudaBackend::drain() noexcept {
  for (auto& s : streams_)
    if (s) cudaStreamSynchronize(s);
}

std::string CudaBackend::name() const { return "cuda:" + std::to_string(device_) + " (" + device_name_ + ")"; }

HostBuffer CudaBackend::allocate_host(size_t bytes) { return allocate_pinned(bytes); }

size_t CudaBackend::sort_scratch_bytes(const Format&, size_t) const { return 0; }

DeviceInfo CudaBackend::info() const {
  set_device();
  DeviceInfo d;
  cudaDeviceProp prop;
  GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, int(device_)));
  d.name = prop.name;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&d.free_memory, &d.total_memory));
  d.budget = mem_->budget();
  d.multiprocessors = prop.multiProcessorCount;
  d.major = prop.major;
  d.minor = prop.minor;
  return d;
}

size_t CudaBackend::sort_device_bytes(const Format& f, size_t n) const {
  set_device();
  return device_bytes(f, n, sort_temp_bytes(f, n));
}

size_t CudaBackend::max_chunk_records(const Format& f) const {
  const size_t avail = mem_->largest_free();
  if (avail <= SortPolicy::kRoundingSlack) return 0;
  // Bytes per record of the layout in device_bytes(), without temp storage and rounding.
  size_t per = 2 * f.key_bytes;
  if (!f.flat()) per = f.record_size + 2 * sizeof(u32) + std::max<size_t>(2 * (any_wide(key_passes(f)) ? 8 : 4), f.record_size);
  size_t n = std::min(SortPolicy::kMaxRecords, (avail - SortPolicy::kRoundingSlack) / per);
  // CUB's temp storage grows more slowly than n: trim until the whole working set fits.
  for (int i = 0; i < 64 && n > 0; ++i) {
    const size_t need = sort_device_bytes(f, n);
    if (need <= avail) break;
    n -= std::min(n, (need - avail) / per + 1);
  }
  return n;
}

void CudaBackend::sort_chunk(const Format& f, unsigned char* records, size_t n, unsigned char* /*scratch*/) {
  if (n < 2) return;
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  if (n > SortPolicy::kMaxRecords || sort_device_bytes(f, n) > mem_->largest_free()) {
    throw Error(ExitCode::io, "device memory budget exceeded: sorting " + std::to_string(n) + " records of " +
                                  std::to_string(f.record_size) + " bytes needs " +
                                  format_bytes(n > SortPolicy::kMaxRecords ? 0 : sort_device_bytes(f, n)) +
                                  " of device memory; at most " + std::to_string(max_chunk_records(f)) +
                                  " records fit (budget " + format_bytes(mem_->budget()) + ", " +
                                  format_bytes(mem_->in_use()) + " in use)");
  }
  Work w;  // outlives the try block: its buffers go back only after the streams drained
  try {
    if (f.flat()) sort_flat(f, records, n, w);
    else sort_records(f, records, n, w);
  } catch (...) {
    drain();
    throw;
  }
}

void CudaBackend::sort_flat(const Format& f, unsigned char* records, size_t n, Work& w) {
  const size_t bytes = n * f.key_bytes;
  w.keys[0] = mem_->allocate(bytes, "flat keys");
  w.keys[1] = mem_->allocate(bytes, "flat keys (radix sort double buffer)");
  w.bits = mem_->allocate(2 * sizeof(u64), "key bit range");
  Ctx c{{streams_[0], streams_[1]}, joined_, mem_.get(), static_cast<unsigned long long*>(w.bits.get()),
        reinterpret_cast<u64*>(bits_host_.data()), unsigned(multiprocessors_ * SortPolicy::kBlocksPerSM)};
  if (f.key_bytes == 4) sort_flat_impl<u32>(c, f, records, n, w.keys[0], w.keys[1]);
  else sort_flat_impl<u64>(c, f, records, n, w.keys[0], w.keys[1]);
}

void CudaBackend::sort_records(const Format& f, unsigned char* host, size_t n, Work& w) {
  const size_t R = f.record_size;
  const std::vector<KeyPass> passes = key_passes(f);
  const size_t key_w = any_wide(passes) ? 8 : 4;

  // Allocation order matters: see device_bytes().
  w.records_in = mem_->allocate(n * R, "records");
  w.vals[0] = mem_->allocate(n * sizeof(u32), "record indices");
  w.vals[1] = mem_->allocate(n * sizeof(u32), "record indices (radix sort double buffer)");
  w.bits = mem_->allocate(2 * sizeof(u64), "key bit range");
  w.keys[0] = mem_->allocate(n * key_w, "key words");
  w.keys[1] = mem_->allocate(n * key_w, "key words (radix sort double buffer)");
  Ctx c{{streams_[0], streams_[1]}, joined_, mem_.get(), static_cast<unsigned long long*>(w.bits.get()),
        reinterpret_cast<u64*>(bits_host_.data()), unsigned(multiprocessors_ * SortPolicy::kBlocksPerSM)};

  unsigned char* recs = static_cast<unsigned char*>(w.records_in.get());
  u32* perm = static_cast<u32*>(w.vals[0].get());      // the current permutation
  u32* perm_alt = static_cast<u32*>(w.vals[1].get());
  bool identity = true;                                 // no pass has reordered anything yet
  const size_t slice = std::max<size_t>(1, SortPolicy::kSliceBytes / R);

  for (size_t p = 0; p < passes.size(); ++p) {
    const KeyPass& pass = passes[p];
    const KeySpec spec = key_spec(f, pass);
    c.reset_bits(c.s[0]);
    if (p == 0) {
      // The first pass rides on the copy-in: slice i's keys are built while slice i+1 copies.
      c.join(c.s[0], c.s[1]);
      for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
        const size_t hi = std::min(n, lo + slice);
        cudaStream_t st = c.s[k & 1];
        GXSORT_CUDA_CHECK(cudaMemcpyAsync(recs + lo * R, host + lo * R, (hi - lo) * R, cudaMemcpyHostToDevice, st));
        extract(c, st, pass.wide, recs, nullptr, perm, w.keys[0].get(), lo, hi, spec);
      }
      c.join(c.s[1], c.s[0]);
    } else {
      extract(c, c.s[0], pass.wide, recs, perm, nullptr, w.keys[0].get(), 0, n, spec);
    }
    const BitRange r = c.read_bits();
    if (r.empty()) continue;  // this segment is equal in every record: it reorders nothing

    cub::DoubleBuffer<u32> vals(perm, perm_alt);
    if (pass.wide) {
      cub::DoubleBuffer<u64> keys(static_cast<u64*>(w.keys[0].get()), static_cast<u64*>(w.keys[1].get()));
      sort_words<u64>(c, keys, &vals, n, r, "record keys");
    } else {
      cub::DoubleBuffer<u32> keys(static_cast<u32*>(w.keys[0].get()), static_cast<u32*>(w.keys[1].get()));
      sort_words<u32>(c, keys, &vals, n, r, "record keys");
    }
    perm = vals.Current();
    perm_alt = vals.Alternate();
    identity = false;
  }
  if (identity) {
    // Nothing moved (all keys equal): the host copy is already in order.
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
    return;
  }

  // The key words are done with; their space (and the temp storage's) holds the output.
  w.keys[1].reset();
  w.keys[0].reset();
  w.records_out = mem_->allocate(n * R, "sorted records");
  unsigned char* out = static_cast<unsigned char*>(w.records_out.get());
  c.join(c.s[0], c.s[1]);
  for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
    const size_t hi = std::min(n, lo + slice);
    cudaStream_t st = c.s[k & 1];
    gather(c, st, recs, out, perm, lo, hi, R);
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host + lo * R, out + lo * R, (hi - lo) * R, cudaMemcpyDeviceToHost, st));
  }
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[1]));
}

// ---------------------------------------------------------------------------------------
// The device-resident sort of flat keys: each load() copies a slice in and transforms its
// keys; sort() runs the radix sort over the bits that differ and transforms back; each
// unload() copies a sorted slice out. The backend stays locked for the sort's lifetime
// (it may use the whole budget).

template <class K>
class ResidentFlatSort final : public DeviceResidentSort {
 public:
  ResidentFlatSort(CudaBackend& b, const Format& f, size_t n) : b_(b), f_(f), n_(n), lock_(b.sort_mu_) {
    b_.set_device();
    keys0_ = b_.mem_->allocate(std::max<size_t>(n * sizeof(K), 1), "flat keys");
    keys1_ = b_.mem_->allocate(std::max<size_t>(n * sizeof(K), 1), "flat keys (radix sort double buffer)");
    bits_ = b_.mem_->allocate(2 * sizeof(u64), "key bit range");
    ctx().reset_bits(b_.streams_[0]);
    out_ = static_cast<K*>(keys0_.get());
  }
  ~ResidentFlatSort() override { b_.drain(); }

  void load(const unsigned char* host, size_t first, size_t count) override {
    b_.set_device();  // callers may be other threads (the chunk scheduler's stages)
    const Ctx c = ctx();
    K* keys = static_cast<K*>(keys0_.get()) + first;
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(keys, host, count * sizeof(K), cudaMemcpyHostToDevice, c.s[0]));
    order_flat_kernel<K><<<c.grid(count), SortPolicy::kThreads, 0, c.s[0]>>>(keys, count, f_.key_type, f_.reverse, c.bits);
    GXSORT_CUDA_CHECK_LAUNCH("order_flat_kernel");
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));  // the host slot is free again
  }

  void sort() override {
    b_.set_device();
    const Ctx c = ctx();
    const BitRange r = c.read_bits();
    if (!r.empty()) {
      cub::DoubleBuffer<K> keys(static_cast<K*>(keys0_.get()), static_cast<K*>(keys1_.get()));
      sort_words<K>(c, keys, nullptr, n_, r, "flat keys");
      out_ = keys.Current();
    }
    unorder_flat_kernel<K><<<c.grid(n_), SortPolicy::kThreads, 0, c.s[0]>>>(out_, n_, f_.key_type, f_.reverse);
    GXSORT_CUDA_CHECK_LAUNCH("unorder_flat_kernel");
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  }

  void unload(unsigned char* host, size_t first, size_t count) override {
    b_.set_device();
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host, out_ + first, count * sizeof(K), cudaMemcpyDeviceToHost, b_.streams_[0]));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(b_.streams_[0]));
  }

 private:
  Ctx ctx() const {
    return Ctx{{b_.streams_[0], b_.streams_[1]}, b_.joined_, b_.mem_.get(), static_cast<unsigned long long*>(bits_.get()),
               reinterpret_cast<u64*>(b_.bits_host_.data()), unsigned(b_.multiprocessors_ * SortPolicy::kBlocksPerSM)};
  }
  CudaBackend& b_;
  Format f_;
  size_t n_;
  std::lock_guard<std::mutex> lock_;
  DeviceAllocation keys0_, keys1_, bits_;
  K* out_;
};

std::unique_ptr<DeviceResidentSort> CudaBackend::begin_resident_sort(const Format& f, size_t n) {
  if (!f.flat() || n < 2 || n > max_chunk_records(f)) return nullptr;
  if (f.key_bytes == 4) return std::make_unique<ResidentFlatSort<u32>>(*this, f, n);
  return std::make_unique<ResidentFlatSort<u64>>(*this, f, n);
}

}  // namespace gxsort::cuda
