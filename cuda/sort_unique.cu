// Sort + unique with a bit-range radix sort and the low bits resolved by the unique (see
// sort_unique.cuh).
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>

#include "cuda_check.cuh"
#include "gxsort/error.hpp"
#include "sort_unique.cuh"

namespace gxsort::cuda {
namespace {

// The low-bit unique (step 3 of sort_unique.cuh): one pass over the keys sorted by
// k >> low, in tiles, with CUB's decoupled look-back carrying each tile's prefix.
//
// A group is a run of equal k >> low; its mask ORs 1 << (k & low bits) over the group:
// the set of its distinct keys, in order. The keys are summarised as Spans (below) and
// scanned in key order: the exclusive prefix at a group's first key (its head) holds the
// previous group's whole mask (tail) and the number of distinct keys of every group
// before that one (count), i.e. where that group's keys go. In a tile:
//   1. each thread sums its keys into one Span; a block scan with the look-back gives
//      each thread the Span of everything before it;
//   2. each thread walks its keys again: at each head it records the group that closes
//      there (its offset in the tile's output and its mask) by the group's rank in the tile;
//   3. each key of a group that closes in the tile writes itself at its place in the
//      group, offset + popcount(mask below its low bits), into shared memory (copies of a
//      key write the same word to the same place); the group open at the tile's start
//      has keys in earlier tiles and is written from its mask instead;
//   4. the tile's output, staged in order, is copied out coalesced.
// Every key does the same work (no loop over a mask's bits per key), and the keys are
// read once and the output written once.
constexpr uint32_t kHeadSeen = 1u << 31;  // in the count field (n < 2^31)

// A Span, packed in 64 bits so the look-back reads a tile's status and value in one
// load: bits 0-30 count, 31 kHeadSeen, 32-47 lead, 48-63 tail (masks of low <= 4 bits).
//   no head in the span: lead = OR of its keys' bits (the middle of a group);
//   a head in it:        lead = the bits before its first head (the end of an earlier
//                        group), count = distinct keys of the groups that start and end
//                        in it, tail = the bits of its last group (still open at its end).
using Span = unsigned long long;
__device__ __forceinline__ uint32_t span_count(Span s) { return uint32_t(s); }
__device__ __forceinline__ uint32_t span_lead(Span s) { return uint32_t(s >> 32) & 0xffffu; }
__device__ __forceinline__ uint32_t span_tail(Span s) { return uint32_t(s >> 48); }
__device__ __forceinline__ Span make_span(uint32_t count, uint32_t lead, uint32_t tail) {
  return Span(count) | Span(lead) << 32 | Span(tail) << 48;
}
__device__ __forceinline__ uint32_t distinct_before(Span s) { return span_count(s) & ~kHeadSeen; }

// Joining two adjacent spans. Associative, and 0 (no keys) is its identity.
struct JoinSpans {
  __device__ __forceinline__ Span operator()(Span a, Span b) const {
    const uint32_t ac = span_count(a), bc = span_count(b);
    if (!(bc & kHeadSeen)) return a | Span(span_lead(b)) << ((ac & kHeadSeen) ? 48 : 32);
    if (!(ac & kHeadSeen)) return b | Span(span_lead(a)) << 32;
    // a's open group ends with b's lead.
    return make_span(ac + uint32_t(__popc(span_tail(a) | span_lead(b))) + (bc & ~kHeadSeen), span_lead(a),
                     span_tail(b));
  }
};
// A span extended by one key.
__device__ __forceinline__ Span add_key(Span s, bool head, uint32_t bit) {
  const uint32_t c = span_count(s);
  if (head) return make_span((c & kHeadSeen) ? c + uint32_t(__popc(span_tail(s))) : kHeadSeen, span_lead(s), bit);
  return s | Span(bit) << ((c & kHeadSeen) ? 48 : 32);
}

// 256 x 20 keys measured fastest of 64-256 threads x 8-32 keys on the H200 (PBBS case).
constexpr int kThreads = 256;
constexpr int kItems = 20;
constexpr int kTile = kThreads * kItems;
// A tile writes at most its own keys plus the end of the group that enters it (<= 16
// distinct keys): each group it writes ends before one of its heads or at the array's end.
constexpr int kMaxTileOut = kTile + 16;
static_assert(kMaxTileOut < (1 << 16), "a group's offset in the tile is kept in 16 bits");

using TileState = cub::ScanTileState<Span>;
using Load = cub::BlockLoad<uint32_t, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using SpanScan = cub::BlockScan<Span, kThreads>;
using CountScan = cub::BlockScan<int, kThreads>;
using Prefix = cub::TilePrefixCallbackOp<Span, JoinSpans, TileState>;

struct UniqueStorage {
  union {
    typename Load::TempStorage load;
    uint32_t staged[kMaxTileOut];  // the tile's output, in order
  };
  typename SpanScan::TempStorage span_scan;
  typename CountScan::TempStorage count_scan;
  typename Prefix::TempStorage prefix;
  uint32_t last_key[kThreads];  // each thread's last key: the next thread's predecessor
  uint32_t group[kTile + 1];    // by rank in the tile: offset in the tile's output << 16 | mask
  uint32_t first_out;           // the tile's first output offset, and one past its last
  uint32_t end_out;
};

// Bit j: key j starts a group (its bits above `low` differ from those of the key before
// it; `prev` is the key before key[0]).
__device__ __forceinline__ uint32_t group_heads(const uint32_t (&key)[kItems], uint32_t prev, int low) {
  uint32_t heads = 0;
  for (int j = 0; j < kItems; ++j) {
    heads |= uint32_t((key[j] >> low) != (prev >> low)) << j;
    prev = key[j];
  }
  return heads;
}

__global__ void init_tiles_kernel(TileState state, int tiles) { state.InitializeStatus(tiles); }

__global__ void __launch_bounds__(kThreads) unique_kernel(const uint32_t* __restrict__ sorted, size_t n, int low,
                                                          TileState state, uint32_t* __restrict__ out,
                                                          uint32_t* __restrict__ total) {
  __shared__ UniqueStorage st;
  const int tile = int(blockIdx.x);
  const size_t first = size_t(tile) * kTile;
  const bool last_tile = first + kTile >= n;
  uint32_t key[kItems];
  if (!last_tile) Load(st.load).Load(sorted + first, key);
  else Load(st.load).Load(sorted + first, key, int(n - first), sorted[n - 1]);  // padding joins the last group
  st.last_key[threadIdx.x] = key[kItems - 1];
  __syncthreads();  // the load's storage is reused by the staging below

  const uint32_t low_mask = (1u << low) - 1;
  const uint32_t heads =
      group_heads(key, threadIdx.x ? st.last_key[threadIdx.x - 1] : first ? sorted[first - 1] : ~key[0], low);
  // 1. This thread's span; the span of everything before it.
  Span mine = 0;
  for (int j = 0; j < kItems; ++j) mine = add_key(mine, (heads >> j) & 1, 1u << (key[j] & low_mask));
  Span run;
  if (tile == 0) {
    Span aggregate;
    SpanScan(st.span_scan).ExclusiveScan(mine, run, Span(0), JoinSpans{}, aggregate);
    if (threadIdx.x == 0) state.SetInclusive(0, aggregate);
  } else {
    Prefix prefix(state, st.prefix, JoinSpans{}, tile);
    SpanScan(st.span_scan).ExclusiveScan(mine, run, JoinSpans{}, prefix);
  }
  int rank0, tile_heads;  // heads before this thread's keys, and in the tile
  CountScan(st.count_scan).ExclusiveSum(__popc(heads), rank0, tile_heads);
  if (threadIdx.x == 0) st.first_out = tile == 0 ? 0 : distinct_before(run);
  __syncthreads();
  const uint32_t base = st.first_out;

  // 2. Record each group that closes at one of this thread's heads.
  int rank = rank0;
  for (int j = 0; j < kItems; ++j) {
    const bool head = (heads >> j) & 1;
    if (head) st.group[rank++] = (distinct_before(run) - base) << 16 | span_tail(run);
    run = add_key(run, head, 1u << (key[j] & low_mask));
  }
  if (threadIdx.x == kThreads - 1) {
    uint32_t end = distinct_before(run);
    if (last_tile) {  // the array's last group closes at its end
      st.group[tile_heads] = (end - base) << 16 | span_tail(run);
      end += uint32_t(__popc(span_tail(run)));
      *total = end;
    }
    st.end_out = end;
  }
  __syncthreads();

  // 3. Groups of ranks [0, closed) close in this tile; rank 0 entered it from earlier tiles.
  const int closed = last_tile ? tile_heads + 1 : tile_heads;
  if (threadIdx.x < 32 && closed > 0 && first > 0) {
    const uint32_t g = st.group[0], mask = g & 0xffffu;
    if (threadIdx.x < uint32_t(__popc(mask))) {
      const uint32_t group = (sorted[first - 1] >> low) << low;
      st.staged[(g >> 16) + threadIdx.x] = group | __fns(mask, 0, int(threadIdx.x) + 1);
    }
  }
  rank = rank0;
  for (int j = 0; j < kItems; ++j) {
    rank += (heads >> j) & 1;
    if (rank >= 1 && rank < closed) {
      const uint32_t g = st.group[rank];
      st.staged[(g >> 16) + uint32_t(__popc(g & ((1u << (key[j] & low_mask)) - 1)))] = key[j];
    }
  }
  __syncthreads();

  // 4. Copy out.
  const uint32_t count = st.end_out - base;
  for (uint32_t i = threadIdx.x; i < count; i += kThreads) out[base + i] = st.staged[i];
}

int tiles_of(size_t n) { return int((n + kTile - 1) / kTile); }

// Work area: [0] max key, [1] unique count (256 bytes); the tile states; CUB temp.
size_t tile_state_bytes(size_t n) {
  size_t b = 0;
  GXSORT_CUDA_CHECK(TileState::AllocationSize(tiles_of(n), b));
  return (b + 255) / 256 * 256;
}
uint32_t* scalars(void* w) { return static_cast<uint32_t*>(w); }
void* tile_states(void* w) { return static_cast<unsigned char*>(w) + 256; }
void* cub_temp(void* w, size_t n) { return static_cast<unsigned char*>(w) + 256 + tile_state_bytes(n); }

// The reduce and select count items in 32 bits (faster CUB paths; the header asks
// n < 2^31); the radix sort keeps the size_t count its reference call uses.
size_t cub_temp_bytes(size_t n_) {
  const int n = int(n_);
  const uint32_t* k = nullptr;
  uint32_t* o = nullptr;
  size_t a = 0, b = 0, c = 0;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, a, k, o, n));
  GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b, k, o, n_));
  GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, c, k, o, o, n));
  return std::max({a, b, c, size_t(1)});
}

uint32_t read_word(const uint32_t* d, cudaStream_t s) {
  uint32_t v = 0;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&v, d, 4, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return v;
}

}  // namespace

size_t sort_unique_work_bytes(size_t n) { return 256 + tile_state_bytes(n) + cub_temp_bytes(n) + 256; }

size_t low_bit_unique_u32(const uint32_t* d_sorted, size_t n, int low, uint32_t* d_out, void* work, cudaStream_t s) {
  if (n == 0) return 0;
  if (n >= (size_t(1) << 31)) throw Error(ExitCode::usage, "low_bit_unique_u32: at most 2^31 - 1 keys");
  if (low < 0 || low > kMaxLowBits) throw Error(ExitCode::usage, "low_bit_unique_u32: low must be in [0, 4]");
  uint32_t* total = scalars(work) + 1;
  if (low == 0) {
    size_t t = cub_temp_bytes(n);
    GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(cub_temp(work, n), t, d_sorted, d_out, total, int(n), s));
    return read_word(total, s);
  }
  const int tiles = tiles_of(n);
  TileState state;
  GXSORT_CUDA_CHECK(state.Init(tiles, tile_states(work), tile_state_bytes(n)));
  init_tiles_kernel<<<unsigned((tiles + 255) / 256), 256, 0, s>>>(state, tiles);
  GXSORT_CUDA_CHECK_LAUNCH("sort unique tile init");
  unique_kernel<<<unsigned(tiles), kThreads, 0, s>>>(d_sorted, n, low, state, d_out, total);
  GXSORT_CUDA_CHECK_LAUNCH("sort unique");
  return read_word(total, s);
}

size_t sort_unique_u32(const uint32_t* d_keys, size_t n, uint32_t* d_sorted, uint32_t* d_out, void* work,
                       cudaStream_t s) {
  if (n == 0) return 0;
  if (n >= (size_t(1) << 31)) throw Error(ExitCode::usage, "sort_unique_u32: at most 2^31 - 1 keys");
  uint32_t* mx_word = scalars(work);
  const size_t tb = cub_temp_bytes(n);
  size_t t = tb;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::Max(cub_temp(work, n), t, d_keys, mx_word, int(n), s));
  const uint32_t mx = read_word(mx_word, s);
  const int bits = mx ? 32 - __builtin_clz(mx) : 0;
  const int low = sort_unique_low_bits(bits);
  const uint32_t* sorted = d_keys;  // no bits above the low ones: one group, nothing to sort
  if (bits > low) {
    t = tb;
    GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(cub_temp(work, n), t, d_keys, d_sorted, n, low, bits, s));
    sorted = d_sorted;
  }
  return low_bit_unique_u32(sorted, n, low, d_out, work, s);
}

}  // namespace gxsort::cuda
