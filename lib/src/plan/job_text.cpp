// `gxsort plan CMD`: the plan of a command other than sort, as text and as JSON. The
// sort's own text, JSON and dot stay in plan.cpp (scripts read them).
#include <sstream>

#include "kernels/key_bitmap.hpp"
#include "plan/job.hpp"

namespace gxsort {
namespace {

std::string chunks_text(const StreamPlan& s, size_t record_size, const char* unit = "records") {
  return std::to_string(s.chunk_records) + " " + unit + " (" + format_bytes(uint64_t(s.chunk_records) * record_size) +
         "), " + std::to_string(s.slots) + " in flight";
}

void input_text(std::ostringstream& o, const Plan& p) {
  o << "command: " << job_kind_name(p.command) << "\n";
  if (p.command == JobKind::bfs) {
    if (p.bfs.graph_known) o << "graph: " << p.bfs.vertices << " vertices, " << p.bfs.edges << " edges\n";
  } else if (p.command == JobKind::graph_build) {
    o << "input: " << (p.stream ? "a stream" : format_bytes(p.input_bytes)) << " of edges\n";
  } else if (p.stream) {
    o << "input: a stream (a pipe, FIFO, device or standard input): its size is known when it ends\n";
  } else {
    o << "input: " << p.records << " records of " << p.record_size << " bytes (" << format_bytes(p.input_bytes) << ")\n";
  }
  o << "memory budget: " << (p.memory ? format_bytes(p.memory) : std::string("none")) << "\n";
  o << "threads: " << p.threads << "\n";
}

void dedupe_text(std::ostringstream& o, const Plan& p) {
  const DedupePlan& d = p.dedupe;
  o << "strategy: " << dedupe_path_name(d.strategy) << "\n";
  if (d.key_span)
    o << "keys sampled: " << kKeySpanSamples << ", spanning " << d.key_span << " key values (the bitmap's bits)\n";
  if (d.strategy == DedupePath::bitmap) {
    o << "bitmap: keys streamed in chunks of " << chunks_text(d.bitmap, 4, "keys") << "; the "
      << format_bytes(kBitmapBytes) << " bitmap of every key "
      << (d.bitmap_budget == UINT64_MAX ? std::string("(--strategy bitmap)")
                                        : "within " + format_bytes(d.bitmap_budget) + " (else the sort)")
      << "; then the set bits written in order\n";
  } else if (d.strategy == DedupePath::stream) {
    o << "group pass over the sorted input (its order verified): chunks of " << chunks_text(d.group, p.record_size) << "\n";
  } else {
    o << (d.keep_first ? "the sort drops the duplicates (sort -u):\n"
                       : "a stable sort into a temporary file, then the group pass (chunks of " +
                             chunks_text(d.group, p.record_size) + "); the sort:\n");
    std::istringstream sort_lines(plan_text(p));
    for (std::string line; std::getline(sort_lines, line);) o << "  " << line << "\n";
  }
}

void bfs_text(std::ostringstream& o, const Plan& p) {
  const BfsPlan& b = p.bfs;
  o << "load: the CSR within " << (b.load_budget ? format_bytes(b.load_budget) : std::string("any memory")) << "\n";
  if (!b.graph_known) return;
  if (!b.on_device) {
    o << "search: the CPU BFS (level-synchronous, " << p.threads << " threads)\n";
    return;
  }
  const graph::BfsDevicePlan& d = b.device;
  o << "search: on the device, in " << format_bytes(b.device_budget) << " of device memory\n";
  o << "device: " << format_bytes(d.resident_bytes) << " resident (offsets, levels, parents, queues); neighbors "
    << (!d.streamed     ? std::string("resident")
        : d.host_mapped ? "read in place from pinned host memory (or, where pinning is refused, streamed in " +
                              std::to_string(d.partitions) + " partitions of up to " + std::to_string(d.partition_edges) + " edges)"
                        : "streamed in " + std::to_string(d.partitions) + " partitions of up to " +
                              std::to_string(d.partition_edges) + " edges")
    << "; " << format_bytes(d.need_bytes) << " in all" << (d.need_bytes > b.device_budget ? " (more than the budget: refused)" : "")
    << "\n";
}

void command_text(std::ostringstream& o, const Plan& p) {
  switch (p.command) {
    case JobKind::check:
    case JobKind::reduce:
      o << "chunks: " << chunks_text(p.chunks, p.record_size) << "\n";
      break;
    case JobKind::runs:
      o << "runs: " << (p.stream ? std::string("as many as the stream holds") : std::to_string(p.runs)) << " of up to "
        << chunks_text(p.chunks, p.record_size) << ", written to the output directory\n";
      o << "run files: " << (p.direct_io ? "written around the page cache (--direct-io)" : "through the page cache") << "\n";
      break;
    case JobKind::merge:
      o << "inputs: " << p.runs << "\n" << merge_levels_text(p);
      o << "merge buffer: " << format_bytes(p.merge_buffer_bytes) << " per input, " << p.merge_threads << " merge threads\n";
      o << "temporary space: " << format_bytes(p.temp_bytes) << "\n";
      break;
    case JobKind::dedupe: dedupe_text(o, p); break;
    case JobKind::graph_build:
      o << "parse: binary edges in blocks of " << format_bytes(p.graph.parse_block_bytes) << "; 16-byte edge records "
        << (p.graph.max_edge_records ? "(at most " + std::to_string(p.graph.max_edge_records) + ")" : std::string("(counted as parsed)"))
        << " sorted and deduplicated by the sort, which plans itself once they are counted\n";
      o << "csr: sorted edges converted in blocks of " << format_bytes(p.graph.csr_block_bytes) << "; the offsets (8 bytes a vertex) within "
        << format_bytes(p.graph.offsets_budget) << "\n";
      break;
    case JobKind::bfs: bfs_text(o, p); break;
    case JobKind::sort: o << plan_text(p); break;
  }
}

std::string stream_json(const StreamPlan& s) {
  return "{\"chunk_records\":" + std::to_string(s.chunk_records) + ",\"chunk_bytes\":" + std::to_string(s.chunk_bytes) +
         ",\"slots\":" + std::to_string(s.slots) + "}";
}

std::string bfs_json(const BfsPlan& b) {
  std::ostringstream o;
  o << "{\"load_budget\":" << b.load_budget << ",\"graph_known\":" << (b.graph_known ? "true" : "false")
    << ",\"vertices\":" << b.vertices << ",\"edges\":" << b.edges << ",\"on_device\":" << (b.on_device ? "true" : "false")
    << ",\"device_budget\":" << b.device_budget << ",\"device\":{\"resident_bytes\":" << b.device.resident_bytes
    << ",\"need_bytes\":" << b.device.need_bytes << ",\"streamed\":" << (b.device.streamed ? "true" : "false")
    << ",\"host_mapped\":" << (b.device.host_mapped ? "true" : "false")
    << ",\"partition_edges\":" << b.device.partition_edges << ",\"partitions\":" << b.device.partitions << "}}";
  return o.str();
}

}  // namespace

std::string job_plan_text(const Plan& p) {
  std::ostringstream o;
  input_text(o, p);
  command_text(o, p);
  return o.str();
}

std::string job_plan_json(const Plan& p) {
  std::ostringstream o;
  o << "{\"planned\":\"" << job_kind_name(p.command) << "\",\"threads\":" << p.threads << ",\"memory\":" << p.memory
    << ",\"stream\":" << (p.stream ? "true" : "false") << ",\"input_bytes\":" << p.input_bytes
    << ",\"records\":" << p.records << ",\"record_size\":" << p.record_size << ",\"chunks\":" << stream_json(p.chunks)
    << ",\"window_memory\":" << p.window_memory;
  if (p.command == JobKind::dedupe)
    o << ",\"dedupe\":{\"strategy\":\"" << dedupe_path_name(p.dedupe.strategy) << "\",\"keep_first\":"
      << (p.dedupe.keep_first ? "true" : "false") << ",\"sort_planned\":" << (p.dedupe.sort_planned ? "true" : "false")
      << ",\"bitmap\":" << stream_json(p.dedupe.bitmap) << ",\"bitmap_budget\":"
      << (p.dedupe.bitmap_budget == UINT64_MAX ? std::string("null") : std::to_string(p.dedupe.bitmap_budget))
      << ",\"group\":" << stream_json(p.dedupe.group) << ",\"key_span\":"
      << (p.dedupe.key_span ? std::to_string(p.dedupe.key_span) : std::string("null")) << "}";
  if (p.command == JobKind::graph_build)
    o << ",\"graph\":{\"parse_block_bytes\":" << p.graph.parse_block_bytes << ",\"csr_block_bytes\":" << p.graph.csr_block_bytes
      << ",\"offsets_budget\":" << p.graph.offsets_budget << ",\"max_edge_records\":" << p.graph.max_edge_records << "}";
  if (p.command == JobKind::bfs) o << ",\"bfs\":" << bfs_json(p.bfs);
  const bool sorts = p.command == JobKind::runs || p.command == JobKind::merge ||
                     (p.command == JobKind::dedupe && p.dedupe.strategy == DedupePath::sort && p.dedupe.sort_planned);
  if (sorts) o << ",\"sort\":" << plan_json(p).substr(0, plan_json(p).size() - 1);  // without its newline
  o << "}\n";
  return o.str();
}

}  // namespace gxsort
