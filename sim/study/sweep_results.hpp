// A sweep CSV (`ddlsim sweep -o FILE.csv`) read back for a study report: the configurations that
// ran, the ones that failed, which scenario keys vary (the factors) and which stay the same.
#pragma once
#include <string>
#include <vector>

#include "compare/csv_table.hpp"

namespace ddlsim {
inline namespace study_layer {

// The result columns a report reads; a sweep CSV without one of them is refused.
const std::vector<std::string>& required_sweep_columns();

struct SweepResults {
  CsvTable table;
  std::vector<std::size_t> ok;      // rows with an empty `error` cell
  std::vector<std::size_t> failed;  // rows whose configuration failed
  // Scenario-key columns with more than one value among the rows that ran, in column order,
  // except cluster.nodes and cluster.gpus_per_node (they make the ranks, the x axis); when both
  // vary, cluster.gpus_per_node is the first factor (one line per GPUs per node).
  std::vector<std::string> factors;
  std::vector<std::string> rank_keys;   // cluster.nodes / cluster.gpus_per_node when they vary
  std::vector<std::string> constant_keys;  // scenario keys with one non-empty value in every row

  const CsvRow& row(std::size_t i) const { return table.rows[i]; }
  const std::string& cell(std::size_t i, const std::string& column) const;
  // A finite number; throws InputError naming file, line and column.
  double number(std::size_t i, const std::string& column) const;
  // The factors' values of row i: "name=resnet50 framework=tf_mirrored" (keys without section).
  std::string factor_label(std::size_t i) const;
};

// Throws InputError naming the file (and column) for a file that is not a sweep CSV, a missing
// column, no configuration that ran, or a non-numeric result of a configuration that ran.
SweepResults read_sweep_results(CsvTable table);

// "training.framework" -> "framework".
std::string short_key(const std::string& key);

}  // namespace study_layer
}  // namespace ddlsim
