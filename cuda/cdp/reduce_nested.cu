// The nested reduction: dynamic parallelism after "Professional CUDA C Programming"
// (ch. 3, nestedReduce), rewritten for CDP2 (the only dynamic parallelism on sm_90).
//
// The book's kernel recursively launches a child grid on half the data and waits for
// it with a device-side cudaDeviceSynchronize() before adding the child's result to
// its own. CDP2 has no device-side synchronization: a grid sees its children's
// writes only in a kernel it launches into cudaStreamTailLaunch, which starts after
// the grid and all of its descendants have finished. So here:
//
//   host ──▶ nested_root (1 thread)
//              ├─▶ nested_node(leaves 0..8)   recursive halving, one thread a node,
//              │     ├─▶ nested_node(0..4) …    as in the book, down to single leaves
//              │     │     └─▶ nested_leaf grid: leaf_ctas CTAs reduce the leaf's blocks
//              │     └─▶ …                      (cta_reduce, the flat kernel's body)
//              └─▶ [tail launch] nested_finalize: combines every leaf CTA's slot
//
// The children run in cudaStreamFireAndForget so that the leaves run concurrently.
// Results are the flat kernel's bit for bit: the same per-block tree, and exact
// integer combination of the CTA slots. Built with -rdc and cudadevrt (gxsort_cdp).
#include "reduce/reduce_kernels.cuh"

namespace gxsort::cuda {
namespace {

// A failed device-side launch is recorded in result->pad for the host to report.
__device__ void note_launch(DevPartial* result) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) atomicExch(&result->pad, (unsigned long long)e);
}

// A leaf: CTA c of the leaf's grid reduces blocks [first + c, last) in steps of grid.
template <KeyType K>
__global__ void __launch_bounds__(kReduceThreads)
    nested_leaf(ReduceArgs a, size_t first, size_t last, DevPartial* slots) {
  cta_reduce<K>(a, first + blockIdx.x, last, gridDim.x, slots + blockIdx.x);
}

// Leaves [lo, hi) of kNestedLeaves; leaf i owns blocks [nblocks*i/L, nblocks*(i+1)/L)
// and slots [i*leaf_ctas, (i+1)*leaf_ctas). Every leaf launches all its CTAs, even
// with no blocks, so that every slot is written.
template <KeyType K>
__global__ void nested_node(ReduceArgs a, size_t nblocks, unsigned lo, unsigned hi, unsigned leaf_ctas,
                            DevPartial* slots, DevPartial* result) {
  if (hi - lo == 1) {
    const size_t first = nblocks * lo / kNestedLeaves, last = nblocks * hi / kNestedLeaves;
    nested_leaf<K><<<leaf_ctas, kReduceThreads, 0, cudaStreamFireAndForget>>>(a, first, last,
                                                                             slots + size_t(lo) * leaf_ctas);
    note_launch(result);
    return;
  }
  const unsigned mid = lo + (hi - lo) / 2;
  nested_node<K><<<1, 1, 0, cudaStreamFireAndForget>>>(a, nblocks, lo, mid, leaf_ctas, slots, result);
  note_launch(result);
  nested_node<K><<<1, 1, 0, cudaStreamFireAndForget>>>(a, nblocks, mid, hi, leaf_ctas, slots, result);
  note_launch(result);
}

__global__ void __launch_bounds__(kReduceThreads)
    nested_finalize(const DevPartial* slots, size_t count, bool is_float, DevPartial* out) {
  finalize_partials(slots, count, is_float, out);
}

template <KeyType K>
__global__ void nested_root(ReduceArgs a, unsigned leaf_ctas, DevPartial* slots, DevPartial* result) {
  const size_t nblocks = (a.n + kReduceBlock - 1) / kReduceBlock;
  nested_node<K><<<1, 1, 0, cudaStreamFireAndForget>>>(a, nblocks, 0, kNestedLeaves, leaf_ctas, slots, result);
  note_launch(result);
  // Runs once this grid and every grid it (transitively) launched have completed:
  // CDP2's replacement for the book's device-side cudaDeviceSynchronize().
  nested_finalize<<<1, kReduceThreads, 0, cudaStreamTailLaunch>>>(
      slots, size_t(kNestedLeaves) * leaf_ctas, KeyTraits<K>::is_float, result);
  note_launch(result);
}

template <KeyType K>
void launch(const ReduceArgs& a, unsigned leaf_ctas, DevPartial* slots, DevPartial* result, cudaStream_t s) {
  GXSORT_CUDA_CHECK(cudaMemsetAsync(&result->pad, 0, sizeof result->pad, s));
  nested_root<K><<<1, 1, 0, s>>>(a, leaf_ctas, slots, result);
  GXSORT_CUDA_CHECK_LAUNCH("nested_root");
}

}  // namespace

void launch_reduce_nested(KeyType k, const ReduceArgs& a, unsigned leaf_ctas, DevPartial* slots,
                          DevPartial* result, cudaStream_t stream) {
  switch (k) {
    case KeyType::u32: return launch<KeyType::u32>(a, leaf_ctas, slots, result, stream);
    case KeyType::i32: return launch<KeyType::i32>(a, leaf_ctas, slots, result, stream);
    case KeyType::f32: return launch<KeyType::f32>(a, leaf_ctas, slots, result, stream);
    case KeyType::u64: return launch<KeyType::u64>(a, leaf_ctas, slots, result, stream);
    case KeyType::i64: return launch<KeyType::i64>(a, leaf_ctas, slots, result, stream);
    case KeyType::f64: return launch<KeyType::f64>(a, leaf_ctas, slots, result, stream);
    default: fail_usage("reduce needs a typed key");
  }
}

}  // namespace gxsort::cuda
