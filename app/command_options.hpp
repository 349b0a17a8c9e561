// Each command's own options (add_*_options) and the check of its operands and
// required options into the Command (build_*): the registry's functions (commands.cpp).
#pragma once
#include "cli_args.hpp"

namespace gxsort::cli {

void add_sort_options(po::options_description& d, Command& cmd, Args& a);
void build_sort(const Args& a, const po::variables_map& vm, Command& cmd);
void add_plan_options(po::options_description& d, Command& cmd, Args& a);
void build_plan(const Args& a, const po::variables_map& vm, Command& cmd);
void add_runs_options(po::options_description& d, Command& cmd, Args& a);
void build_runs(const Args& a, const po::variables_map& vm, Command& cmd);
void add_merge_options(po::options_description& d, Command& cmd, Args& a);
void build_merge(const Args& a, const po::variables_map& vm, Command& cmd);
void add_check_options(po::options_description& d, Command& cmd, Args& a);
void build_check(const Args& a, const po::variables_map& vm, Command& cmd);
void add_gen_options(po::options_description& d, Command& cmd, Args& a);
void build_gen(const Args& a, const po::variables_map& vm, Command& cmd);
void add_dedupe_options(po::options_description& d, Command& cmd, Args& a);
void build_dedupe(const Args& a, const po::variables_map& vm, Command& cmd);
void add_reduce_options(po::options_description& d, Command& cmd, Args& a);
void build_reduce(const Args& a, const po::variables_map& vm, Command& cmd);
void add_graph_build_options(po::options_description& d, Command& cmd, Args& a);
void build_graph_build(const Args& a, const po::variables_map& vm, Command& cmd);
void add_bfs_options(po::options_description& d, Command& cmd, Args& a);
void build_bfs(const Args& a, const po::variables_map& vm, Command& cmd);

void add_info_options(po::options_description& d, Command& cmd, Args& a);
void add_clean_options(po::options_description& d, Command& cmd, Args& a);
void build_no_operands(const Args& a, const po::variables_map& vm, Command& cmd);
// bfs's search options into the Command (bfs, and plan bfs, which runs nothing).
void bfs_request(const Args& a, const po::variables_map& vm, Command& cmd);

}  // namespace gxsort::cli
