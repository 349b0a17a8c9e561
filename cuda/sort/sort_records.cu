// The device sort of records: copy the records in, build (key word, record index) pairs,
// SortPairs, then gather whole records by the sorted index into a second buffer and copy
// that out. Keys wider than 8 bytes are sorted LSD by word: the key is cut into 8-byte
// big-endian segments, and the segments are sorted last to first with a stable sort that
// carries the permutation, so ties on a segment keep the order of the later ones.
#include <algorithm>

#include "gather.cuh"
#include "host_staging.cuh"
#include "sort/sort_dispatch.cuh"
#include "sort/sort_kernels.cuh"

namespace gxsort::cuda {
namespace {

using u32 = uint32_t;

// The device buffers of a record sort, in the order device_bytes() counts them.
void allocate_record_buffers(SortContext& c, size_t n, size_t record_size, size_t key_w, SortBuffers& w) {
  w.records_in = c.mem->allocate(n * record_size, "records");
  w.vals[0] = c.mem->allocate(n * sizeof(u32), "record indices");
  w.vals[1] = c.mem->allocate(n * sizeof(u32), "record indices (radix sort double buffer)");
  c.take_bits(w.bits);
  w.keys[0] = c.mem->allocate(n * key_w, "key words");
  w.keys[1] = c.mem->allocate(n * key_w, "key words (radix sort double buffer)");
}

// Records of one copy slice.
size_t slice_records(size_t R) { return std::max<size_t>(1, SortPolicy::kSliceBytes / R); }

// The first pass rides on the copy-in: slice i's key words (and the identity permutation
// in `index`) are built while slice i+1 copies.
void copy_in_first_pass(const SortContext& c, const unsigned char* host, unsigned char* recs, size_t n, size_t R,
                        const KeyPass& pass, const KeySpec& spec, u32* index, void* keys) {
  const size_t slice = slice_records(R);
  HostStaging staging(host, nullptr, n * R, slice * R, c.host_threads);
  c.join(c.s[0], c.s[1]);
  for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
    const size_t hi = std::min(n, lo + slice);
    cudaStream_t st = c.s[k & 1];
    staging.upload(recs + lo * R, host + lo * R, (hi - lo) * R, st);
    launch_extract_keys(pass.wide, recs, nullptr, index, keys, lo, hi, spec, c.bits, c.grid(hi - lo), st);
  }
  c.join(c.s[1], c.s[0]);
}

// One pass's stable sort of (key word, index) pairs; perm and perm_alt follow the
// permutation's buffers.
void sort_pass(const SortContext& c, const KeyPass& pass, SortBuffers& w, size_t n, BitRange r, u32*& perm,
               u32*& perm_alt) {
  cub::DoubleBuffer<u32> vals(perm, perm_alt);
  if (pass.wide) {
    cub::DoubleBuffer<uint64_t> keys(static_cast<uint64_t*>(w.keys[0].get()), static_cast<uint64_t*>(w.keys[1].get()));
    sort_words<uint64_t>(c, keys, &vals, n, r, "record keys");
  } else {
    cub::DoubleBuffer<u32> keys(static_cast<u32*>(w.keys[0].get()), static_cast<u32*>(w.keys[1].get()));
    sort_words<u32>(c, keys, &vals, n, r, "record keys");
  }
  perm = vals.Current();
  perm_alt = vals.Alternate();
}

// Slice by slice, the records gathered into `out` by perm and copied back to the host:
// the gather of slice i+1 overlaps the copy of slice i. No perm: recs go back as they are.
void gather_copy_out(const SortContext& c, const unsigned char* recs, unsigned char* out, const u32* perm,
                     unsigned char* host, size_t n, size_t R) {
  const size_t slice = slice_records(R);
  HostStaging staging(nullptr, host, n * R, slice * R, c.host_threads);
  c.join(c.s[0], c.s[1]);
  for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
    const size_t hi = std::min(n, lo + slice);
    cudaStream_t st = c.s[k & 1];
    if (perm) gather_records<u32>(recs, out, perm, lo, hi, R, c.grid_cap, st);
    staging.download(host + lo * R, (perm ? out : recs) + lo * R, (hi - lo) * R, st);
  }
  staging.finish();
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[1]));
}

}  // namespace

void allocate_record_sort(SortContext& c, const Format& f, size_t n, SortBuffers& w) {
  allocate_record_buffers(c, n, f.record_size, any_wide(key_passes(f)) ? 8 : 4, w);
}

void extract_first_keys(const SortContext& c, const Format& f, const unsigned char* recs, SortBuffers& w, size_t lo,
                        size_t hi, cudaStream_t st) {
  const KeyPass pass = key_passes(f).front();
  const KeySpec spec = KeySpec::segment_of(f, pass.start, pass.len);
  launch_extract_keys(pass.wide, recs, nullptr, static_cast<u32*>(w.vals[0].get()), w.keys[0].get(), lo, hi, spec,
                      c.bits, c.grid(hi - lo), st);
}

const uint32_t* sort_record_passes(const SortContext& c, const Format& f, const unsigned char* host, size_t n,
                                   SortBuffers& w) {
  const size_t R = f.record_size;
  const std::vector<KeyPass> passes = key_passes(f);
  unsigned char* recs = static_cast<unsigned char*>(w.records_in.get());
  u32* perm = static_cast<u32*>(w.vals[0].get());      // the current permutation
  u32* perm_alt = static_cast<u32*>(w.vals[1].get());
  bool identity = true;                                 // no pass has reordered anything yet
  for (size_t p = 0; p < passes.size(); ++p) {
    const KeySpec spec = KeySpec::segment_of(f, passes[p].start, passes[p].len);
    if (p > 0 || host) c.reset_bits(c.s[0]);
    if (p == 0 && host) copy_in_first_pass(c, host, recs, n, R, passes[p], spec, perm, w.keys[0].get());
    else if (p > 0) launch_extract_keys(passes[p].wide, recs, perm, nullptr, w.keys[0].get(), 0, n, spec, c.bits, c.grid(n), c.s[0]);
    const BitRange r = c.read_bits();
    if (r.empty()) continue;  // this segment is equal in every record: it reorders nothing
    sort_pass(c, passes[p], w, n, r, perm, perm_alt);
    identity = false;
  }
  return identity ? nullptr : perm;
}

namespace {
// The buffer of the sorted records. The key words are done with: their space (and the
// temp storage's) holds it.
unsigned char* take_output(const SortContext& c, const Format& f, size_t n, SortBuffers& w) {
  w.keys[1].reset();
  w.keys[0].reset();
  w.records_out = c.mem->allocate(n * f.record_size, "sorted records");
  return static_cast<unsigned char*>(w.records_out.get());
}
}  // namespace

unsigned char* gather_sorted_records(const SortContext& c, const Format& f, size_t n, const uint32_t* perm,
                                     SortBuffers& w) {
  unsigned char* out = take_output(c, f, n, w);
  gather_records<u32>(static_cast<const unsigned char*>(w.records_in.get()), out, perm, 0, n, f.record_size,
                      c.grid_cap, c.s[0]);
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  return out;
}

void sort_records_on_device(SortContext c, const Format& f, const unsigned char* in, unsigned char* out, size_t n,
                            SortBuffers& w) {
  allocate_record_sort(c, f, n, w);
  const uint32_t* perm = sort_record_passes(c, f, in, n, w);
  // Nothing moved (all keys equal): in place, already in order; else the records as read
  // (`in` may be changing: a mapping) go out as they are, through the gather's copy-out.
  if (!perm && out == in) {
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
    return;
  }
  gather_copy_out(c, static_cast<const unsigned char*>(w.records_in.get()), perm ? take_output(c, f, n, w) : nullptr,
                  perm, out, n, f.record_size);
}

}  // namespace gxsort::cuda
