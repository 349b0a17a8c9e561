#include "lines/run_writer.hpp"

#include <utility>

#include "lines/write_lines.hpp"

namespace gxsort::lines {

RunWriter::~RunWriter() {
  if (done_.valid()) done_.wait();
}

void RunWriter::start(const RunTarget& t, const LineRefs& lines, BlockOrder order) {
  wait();
  pending_ = t;
  order_ = std::move(order);
  done_ = thread_.submit([this, &lines] {
    write_sorted(pending_.run->file(), 0, lines, order_.perm, order_.keep, job_.order.terminator, job_.run_writers,
                 job_.gather_buffer, pending_.index);
  });
}

void RunWriter::wait() {
  if (!done_.valid()) return;
  done_.get();
  order_ = BlockOrder();
  if (rj_) rj_->keep(pending_.i, *pending_.run, pending_.begin, pending_.end, pending_.lines);
}

}  // namespace gxsort::lines
