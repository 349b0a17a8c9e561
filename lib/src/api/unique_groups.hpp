// unique's groups (gxsort/memory.hpp), found in records handed over in stably sorted
// order, each with its input index: the first record of each group goes to `out`, its
// index to first_index, its size to counts once the next group starts (or at finish()).
// The open group's first record is the last one in `out`. The host unique feeds it the
// sorted records with their indices (a device buffer's unique finds the same groups on
// the GPU: cuda/device_unique_merge.cu).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gxsort/format.hpp"

namespace gxsort::api {

class UniqueGroups {
 public:
  UniqueGroups(const Format& f, void* out, uint64_t* counts, uint64_t* first_index)
      : f_(f), out_(static_cast<unsigned char*>(out)), counts_(counts), first_index_(first_index) {}
  // The next record in sorted order, `index` its position in the input.
  void add(const unsigned char* rec, uint64_t index) {
    if (!extend(rec)) open(rec, index);
  }
  // The next record counted in the open group when its key is the group's; else false.
  bool extend(const unsigned char* rec) {
    if (!groups_ || !same_key(f_, out_ + (groups_ - 1) * f_.record_size, rec)) return false;
    ++open_size_;
    return true;
  }
  // The next record, whose key is not the open group's, opens a group.
  void open(const unsigned char* rec, uint64_t index) {
    finish();
    std::memcpy(out_ + groups_ * f_.record_size, rec, f_.record_size);
    if (first_index_) first_index_[groups_] = index;
    ++groups_;
    open_size_ = 1;
  }
  // The open group's count written; returns the number of groups.
  size_t finish() {
    if (counts_ && groups_) counts_[groups_ - 1] = open_size_;
    return groups_;
  }

 private:
  const Format& f_;
  unsigned char* out_;
  uint64_t* counts_;
  uint64_t* first_index_;
  size_t groups_ = 0;
  uint64_t open_size_ = 0;
};

}  // namespace gxsort::api
