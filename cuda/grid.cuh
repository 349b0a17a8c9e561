// Grid sizes of the grid-stride kernels (sort, window merge, gather).
#pragma once
#include <algorithm>
#include <cstddef>

namespace gxsort::cuda {

// Blocks of `threads` threads for a grid-stride loop over `items`: one item per thread,
// at most `cap` blocks (a grid-stride loop needs no more than fill the device), at least one.
inline unsigned grid_blocks(size_t items, unsigned threads, size_t cap) {
  const size_t blocks = (items + threads - 1) / threads;
  return unsigned(std::max<size_t>(1, std::min<size_t>(blocks, cap)));
}

}  // namespace gxsort::cuda
