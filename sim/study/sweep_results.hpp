// A sweep CSV (`ddlsim sweep -o FILE.csv`) read back for a study report: the configurations that
// ran, the ones that failed, which scenario keys vary (the factors) and which stay the same. The
// file is read twice a line at a time and only what the report draws is kept (the varying keys and
// the resolved assumptions as indices into their distinct values, the results as numbers), so a
// sweep of any size reports in bounded memory: about 200 bytes a configuration.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <string>
#include <vector>

namespace ddlsim {
inline namespace study_layer {

// The failed configurations a page lists by line and error (the rest are counted).
inline constexpr std::size_t kListedFailures = 1000;

// The sweep's result columns that state an assumption (library, algorithm, link costs, ...) and
// what each means: kept as text, listed on the page.
const std::vector<std::pair<std::string, std::string>>& assumption_columns();

// The result columns a report reads; a sweep CSV without one of them is refused.
const std::vector<std::string>& required_sweep_columns();

class SweepResults {
 public:
  std::string file;
  std::vector<std::size_t> ok;      // rows with an empty `error` cell
  std::vector<std::size_t> failed;  // rows whose configuration failed
  // Scenario-key columns with more than one value among the rows that ran, in column order,
  // except cluster.nodes and cluster.gpus_per_node (they make the ranks, the x axis); when both
  // vary, cluster.gpus_per_node is the first factor (one line per GPUs per node). A cluster.nodes
  // that names mixed clusters (tupi:2+poti:1) is a factor: each composition its own series.
  std::vector<std::string> factors;
  std::vector<std::string> rank_keys;      // cluster.nodes / cluster.gpus_per_node when they vary
  std::vector<std::string> constant_keys;  // scenario keys with one non-empty value in every row

  bool has_column(const std::string& column) const;
  int line(std::size_t i) const { return lines_[i]; }
  // A scenario key's value, a resolved text column's (model, algorithm, ..., ranks) or a failed
  // row's `error`, as written.
  const std::string& cell(std::size_t i, const std::string& column) const;
  // A result column's value (finite, checked when read).
  double number(std::size_t i, const std::string& column) const;
  // The factors' values of row i: "name=resnet50 framework=tf_mirrored" (keys without section).
  std::string factor_label(std::size_t i) const;

 private:
  friend SweepResults read_sweep_results(const std::string& path);
  struct TextColumn {
    std::vector<std::string> values;  // distinct, in order of first appearance
    std::vector<std::uint32_t> index;  // per row
  };
  std::set<std::string> header_;
  std::vector<int> lines_;
  std::map<std::string, std::string> single_;     // key columns with one value among the rows that ran
  std::map<std::string, TextColumn> text_;        // varying keys and resolved text columns
  std::map<std::string, std::vector<double>> numbers_;
  std::map<std::size_t, std::string> errors_;     // failed rows
};

// Throws InputError naming the file (and line and column) for a file that is not a sweep CSV, a
// missing column, no configuration that ran, or a result of a configuration that ran that is not
// a number `ddlsim sweep` would write.
SweepResults read_sweep_results(const std::string& path);

// "training.framework" -> "framework".
std::string short_key(const std::string& key);

}  // namespace study_layer
}  // namespace ddlsim
