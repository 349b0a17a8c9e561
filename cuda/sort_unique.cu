// Sort + unique with a bit-range radix sort and the low bits resolved by the unique (see
// sort_unique.cuh).
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "cuda_check.cuh"
#include "gxsort/error.hpp"
#include "sort_unique.cuh"

namespace gxsort::cuda {
namespace {

// The low-bit unique (steps 3-4 of sort_unique.cuh), over tiles of the keys sorted by
// k >> low. A group is a run of equal k >> low; its mask ORs 1 << (k & low bits) over the
// group: the set of its distinct keys, in order. In each tile a segmented OR scan gives,
// at a group's last item in the tile, the mask of the group's part in it.
//   count:   groups that start and end in the tile add their popcounts to counts[t];
//            the tile keeps the in-tile mask of the group that leaves it (own[t]) and of
//            the group that enters it (incoming[t]), and whether any group starts in it;
//   resolve: each tile's incoming part is ORed into own[] of the last tile before it in
//            which a group starts (an exclusive max-scan over the tiles finds it), so
//            own[t] becomes the whole mask of the group that starts in t and leaves it;
//   write:   a scan of counts[t] + popcount(own[t]) gives each tile's output offset;
//            each group that starts in the tile writes its keys there, staged in
//            shared memory so the stores are coalesced.
// Tiles past the end are padded with copies of the last key: they join its group and
// change no mask.
constexpr int kThreads = 256;
constexpr int kItems = 16;
constexpr size_t kTile = size_t(kThreads) * kItems;
// A tile writes at most its own keys plus the rest of the group that leaves it.
constexpr int kMaxTileOut = int(kTile) + 32;

struct GroupChange {
  int low;
  __device__ bool operator()(uint32_t a, uint32_t b) const { return (a >> low) != (b >> low); }
};
// (a head seen in the scanned prefix, OR of the masks since the last head).
struct SegmentedOr {
  __device__ uint2 operator()(uint2 a, uint2 b) const { return b.x ? b : make_uint2(a.x, a.y | b.y); }
};
struct MaxOp {
  __host__ __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

using Load = cub::BlockLoad<uint32_t, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using Flags = cub::BlockDiscontinuity<uint32_t, kThreads>;
using OrScan = cub::BlockScan<uint2, kThreads>;
using SumScan = cub::BlockScan<uint32_t, kThreads>;
using Sum = cub::BlockReduce<uint32_t, kThreads>;

union TileStorage {
  typename Load::TempStorage load;
  typename Flags::TempStorage flags;
  typename OrScan::TempStorage or_scan;
  typename SumScan::TempStorage sum_scan;
  typename Sum::TempStorage sum;
};

// What both passes know of one tile: each item's key, whether it ends its group inside
// the tile, and the segmented OR scan at it (.x: a group starts at or before the item
// inside the tile, i.e. the item's group started in this tile).
struct TileView {
  uint32_t key[kItems];
  int tail[kItems];
  uint2 scan[kItems];
};

__device__ void view_tile(const uint32_t* sorted, size_t n, int low, size_t tile, TileView& v, TileStorage& ts) {
  const size_t first = tile * kTile;
  const uint32_t last_key = sorted[n - 1];
  const int valid = int(min(kTile, n - first));
  Load(ts.load).Load(sorted + first, v.key, valid, last_key);
  __syncthreads();
  // Neighbours outside the tile; a key with bit `low` flipped starts another group.
  const uint32_t pred = first == 0 ? sorted[0] ^ (1u << low) : sorted[first - 1];
  const uint32_t succ = first + kTile >= n ? last_key ^ (1u << low) : sorted[first + kTile];
  int head[kItems];
  Flags(ts.flags).FlagHeadsAndTails(head, pred, v.tail, succ, v.key, GroupChange{low});
  __syncthreads();
  const uint32_t low_mask = (1u << low) - 1;
  uint2 in[kItems];
  for (int j = 0; j < kItems; ++j) in[j] = make_uint2(uint32_t(head[j]), 1u << (v.key[j] & low_mask));
  OrScan(ts.or_scan).InclusiveScan(in, v.scan, SegmentedOr{});
  __syncthreads();
}

__device__ bool is_tile_end(int j) { return threadIdx.x == kThreads - 1 && j == kItems - 1; }

__global__ void __launch_bounds__(kThreads) count_kernel(const uint32_t* __restrict__ sorted, size_t n, int low,
                                                         uint32_t* __restrict__ counts, uint32_t* __restrict__ own,
                                                         uint32_t* __restrict__ incoming,
                                                         uint32_t* __restrict__ has_head) {
  __shared__ TileStorage ts;
  TileView v;
  const size_t tile = blockIdx.x;
  view_tile(sorted, n, low, tile, v, ts);
  uint32_t count = 0;
  for (int j = 0; j < kItems; ++j) {
    if (!v.tail[j] && !is_tile_end(j)) continue;
    const bool headed_here = v.scan[j].x != 0;
    if (v.tail[j] && headed_here) count += __popc(v.scan[j].y);  // the whole group is here
    else if (headed_here) own[tile] = v.scan[j].y;               // leaves the tile
    else incoming[tile] = v.scan[j].y;                           // started in an earlier tile
    // Only the tile's last item can leave it and only its first group can come in:
    // each of own[] and incoming[] has at most one writer.
    if (is_tile_end(j)) has_head[tile] = headed_here ? 1u : 0u;
  }
  const uint32_t total = Sum(ts.sum).Sum(count);
  if (threadIdx.x == 0) counts[tile] = total;
}

// One thread per tile: the part of a group in a tile it entered goes to the tile where
// the group started.
__global__ void resolve_kernel(const uint32_t* __restrict__ incoming, const uint32_t* __restrict__ last_head_before,
                               uint32_t* __restrict__ own, size_t tiles) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= tiles || incoming[t] == 0) return;
  atomicOr(&own[last_head_before[t]], incoming[t]);
}

__global__ void __launch_bounds__(kThreads) write_kernel(const uint32_t* __restrict__ sorted, size_t n, int low,
                                                         const uint32_t* __restrict__ own,
                                                         const uint32_t* __restrict__ offsets, uint32_t* __restrict__ out) {
  __shared__ TileStorage ts;
  __shared__ uint32_t staged[kMaxTileOut];
  TileView v;
  const size_t tile = blockIdx.x;
  view_tile(sorted, n, low, tile, v, ts);
  // The mask each item writes: at the last item of every group that starts here.
  uint32_t mask[kItems];
  uint32_t mine = 0;
  for (int j = 0; j < kItems; ++j) {
    mask[j] = 0;
    if (v.scan[j].x && v.tail[j]) mask[j] = v.scan[j].y;
    else if (v.scan[j].x && is_tile_end(j)) mask[j] = own[tile];  // leaves the tile: the whole mask
    mine += __popc(mask[j]);
  }
  uint32_t at, total;
  SumScan(ts.sum_scan).ExclusiveSum(mine, at, total);
  for (int j = 0; j < kItems; ++j) {
    const uint32_t base = (v.key[j] >> low) << low;
    for (uint32_t m = mask[j]; m; m &= m - 1) staged[at++] = base | uint32_t(__ffs(int(m)) - 1);
  }
  __syncthreads();
  uint32_t* o = out + offsets[tile];
  for (uint32_t i = threadIdx.x; i < total; i += kThreads) o[i] = staged[i];
}

// Tile i's number of distinct keys; 0 past the last tile, so the scan's last entry is
// the total.
struct TileCount {
  const uint32_t* counts;
  const uint32_t* own;
  size_t tiles;
  __host__ __device__ uint32_t operator()(size_t i) const {
#if defined(__CUDA_ARCH__)
    return i < tiles ? counts[i] + uint32_t(__popc(own[i])) : 0u;
#else
    return 0u;
#endif
  }
};
using TileCountIt = thrust::transform_iterator<TileCount, thrust::counting_iterator<size_t>>;
// Tile i if a group starts in it, else 0 (tile 0 always has one).
struct HeadTile {
  const uint32_t* has_head;
  __host__ __device__ uint32_t operator()(size_t i) const { return has_head[i] ? uint32_t(i) : 0u; }
};
using HeadTileIt = thrust::transform_iterator<HeadTile, thrust::counting_iterator<size_t>>;

size_t tiles_of(size_t n) { return (n + kTile - 1) / kTile; }

// Work area: [0] max key, [1] unique count; then kArrays arrays of tiles + 1 words
// (counts, own, incoming, has_head, last_head_before, offsets); CUB temp.
constexpr int kArrays = 6;
struct Layout {
  size_t n;
  size_t array_bytes() const { return ((tiles_of(n) + 1) * 4 + 255) / 256 * 256; }
  uint32_t* scalars(void* w) const { return static_cast<uint32_t*>(w); }
  uint32_t* array(void* w, int i) const {
    return reinterpret_cast<uint32_t*>(static_cast<unsigned char*>(w) + 256 + size_t(i) * array_bytes());
  }
  void* temp(void* w) const { return static_cast<unsigned char*>(w) + 256 + kArrays * array_bytes(); }
};

// The reduce and select count items in 32 bits (faster CUB paths; the header asks
// n < 2^31); the radix sort keeps the size_t count its reference call uses.
size_t cub_temp_bytes(size_t n_) {
  const int n = int(n_);
  const uint32_t* k = nullptr;
  uint32_t* o = nullptr;
  size_t a = 0, b = 0, c = 0, d = 0, e = 0;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, a, k, o, n));
  GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b, k, o, n_));
  GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, c, k, o, o, n));
  const size_t tiles = tiles_of(n_);
  const thrust::counting_iterator<size_t> i0(0);
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, d, TileCountIt(i0, TileCount{k, k, tiles}), o, int(tiles + 1)));
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, e, HeadTileIt(i0, HeadTile{k}), o, MaxOp{}, 0u, int(tiles)));
  return std::max({a, b, c, d, e, size_t(1)});
}

uint32_t read_word(const uint32_t* d, cudaStream_t s) {
  uint32_t v = 0;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&v, d, 4, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return v;
}

}  // namespace

size_t sort_unique_work_bytes(size_t n) {
  const Layout l{n};
  return 256 + kArrays * l.array_bytes() + cub_temp_bytes(n) + 256;
}

size_t sort_unique_u32(const uint32_t* d_keys, size_t n_, uint32_t* d_sorted, uint32_t* d_out, void* work,
                       cudaStream_t s) {
  if (n_ == 0) return 0;
  if (n_ >= (size_t(1) << 31)) throw Error(ExitCode::usage, "sort_unique_u32: at most 2^31 - 1 keys");
  const int n = int(n_);
  const Layout l{n_};
  uint32_t* sc = l.scalars(work);
  void* temp = l.temp(work);
  size_t tb = cub_temp_bytes(n_);
  size_t t = tb;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::Max(temp, t, d_keys, sc, n, s));
  const uint32_t mx = read_word(sc, s);
  const int bits = mx ? 32 - __builtin_clz(mx) : 0;
  const int low = sort_unique_low_bits(bits);
  const uint32_t* sorted = d_keys;  // no bits above the low ones: one group, nothing to sort
  if (bits > low) {
    t = tb;
    GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, t, d_keys, d_sorted, n_, low, bits, s));
    sorted = d_sorted;
  }
  if (low == 0) {
    t = tb;
    GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(temp, t, sorted, d_out, sc + 1, n, s));
    return read_word(sc + 1, s);
  }
  const size_t tiles = tiles_of(n_);
  uint32_t* counts = l.array(work, 0);
  uint32_t* own = l.array(work, 1);
  uint32_t* incoming = l.array(work, 2);
  uint32_t* has_head = l.array(work, 3);
  uint32_t* last_head_before = l.array(work, 4);
  uint32_t* offsets = l.array(work, 5);
  GXSORT_CUDA_CHECK(cudaMemsetAsync(own, 0, 2 * l.array_bytes(), s));  // own and incoming
  count_kernel<<<unsigned(tiles), kThreads, 0, s>>>(sorted, n_, low, counts, own, incoming, has_head);
  GXSORT_CUDA_CHECK_LAUNCH("sort unique count");
  const thrust::counting_iterator<size_t> i0(0);
  t = tb;
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp, t, HeadTileIt(i0, HeadTile{has_head}), last_head_before,
                                                   MaxOp{}, 0u, int(tiles), s));
  resolve_kernel<<<unsigned((tiles + 255) / 256), 256, 0, s>>>(incoming, last_head_before, own, tiles);
  GXSORT_CUDA_CHECK_LAUNCH("sort unique resolve");
  t = tb;
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, t, TileCountIt(i0, TileCount{counts, own, tiles}), offsets,
                                                  int(tiles + 1), s));
  write_kernel<<<unsigned(tiles), kThreads, 0, s>>>(sorted, n_, low, own, offsets, d_out);
  GXSORT_CUDA_CHECK_LAUNCH("sort unique write");
  return read_word(offsets + tiles, s);
}

}  // namespace gxsort::cuda
