// The device sort of run formation (docs/cuda-backend.md), split CUB-style:
//   sort_policy.cuh   tuning constants
//   sort_kernels.cu   the elementwise kernels (key transforms, key words)
//   sort_dispatch.cu  the radix sort passes a format takes, CUB's two-phase radix sort,
//                     and the device bytes a sort needs
//   sort_flat.cu      flat keys: copy in, order words, one SortKeys, back, copy out
//   sort_records.cu   records: (key word, index) pairs sorted LSD by word, then a gather
// The records are gathered by cuda/gather.cuh; keys are read through cuda/device_keys.cuh.
#pragma once
#include <cub/util_type.cuh>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gxsort/format.hpp"
#include "sort/sort_context.cuh"

namespace gxsort::cuda {

// One LSD pass: the whole typed key, or the byte-key segment [start, start + len).
struct KeyPass {
  size_t start = 0;
  size_t len = 0;
  bool wide = false;  // sorts 64-bit words (else 32-bit)
};

// The passes of a format, least significant first.
std::vector<KeyPass> key_passes(const Format& f);
bool any_wide(const std::vector<KeyPass>& passes);

// Sorts the key words already in keys.Current() on c.s[0] (with the permutation when
// vals is set), over the bits where they differ; its temp storage comes from the arena.
// The DoubleBuffers say where the results are.
template <class K>
void sort_words(const SortContext& c, cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<uint32_t>* vals, size_t n,
                BitRange r, const char* what);

// The same sort from `in` into `out` (device buffers that do not overlap; `in` is not
// written): CUB's second buffer is in its temp storage, so the copy is the first pass.
template <class K>
void sort_words_into(const SortContext& c, const K* in, K* out, size_t n, BitRange r, const char* what);

// Device bytes one sort of n records of format f needs, and per record without CUB's
// temp storage and the arena's rounding (the first guess of the records that fit).
size_t sort_working_set(const Format& f, size_t n);
// The same for the record sort (pairs, then a gather) of any format, flat keys too: an argsort's.
size_t record_sort_working_set(const Format& f, size_t n);
// The same for sort_flat_in_place_on_device: one buffer of the keys' size, not two.
size_t flat_in_place_working_set(const Format& f, size_t n);
size_t sort_bytes_per_record(const Format& f);

// Stable sorts of n records in host memory from `in` into `out` (the same buffer: in
// place; else buffers that do not overlap), with the buffers in w (sort_flat.cu,
// sort_records.cu); both may be device memory too (a caller's device buffer): the copies
// are cudaMemcpyDefault, or through pinned staging from and to pageable memory. The
// caller drains the streams before w goes.
void sort_flat_on_device(SortContext c, const Format& f, const unsigned char* in, unsigned char* out, size_t n,
                         SortBuffers& w);
void sort_records_on_device(SortContext c, const Format& f, const unsigned char* in, unsigned char* out, size_t n,
                            SortBuffers& w);
// Flat keys in device memory sorted where they lie (a caller's device buffer): no copies
// in and out, and CUB's second buffer the only one allocated. `from` (device memory, not
// overlapping `keys`), when not `keys`, holds the keys: the first pass copies them over
// (for unsigned ascending keys, CUB's first pass: sort_words_into).
void sort_flat_in_place_on_device(SortContext c, const Format& f, const unsigned char* from, unsigned char* keys,
                                  size_t n, SortBuffers& w);

// The pieces of the record sort, for a sort whose records arrive in slices
// (resident_sort.cu): the buffers of n records; the first pass's key words (and the
// identity permutation) of records [lo, hi) already in w.records_in, on `st`; then the
// passes (host: the records to copy in first, or null when every slice was extracted
// already), which return the sorted permutation, or null when nothing moved; and the
// records gathered by it into w.records_out, returned.
void allocate_record_sort(SortContext& c, const Format& f, size_t n, SortBuffers& w);
void extract_first_keys(const SortContext& c, const Format& f, const unsigned char* recs, SortBuffers& w, size_t lo,
                        size_t hi, cudaStream_t st);
const uint32_t* sort_record_passes(const SortContext& c, const Format& f, const unsigned char* host, size_t n,
                                   SortBuffers& w);
unsigned char* gather_sorted_records(const SortContext& c, const Format& f, size_t n, const uint32_t* perm,
                                     SortBuffers& w);

}  // namespace gxsort::cuda
