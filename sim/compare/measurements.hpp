// Measured runs as configurations: the CSV's columns mapped onto scenario keys (a column named
// after a key, or mapped with --map column=section.key), one measured metric per row, and the
// replications of one configuration grouped (mean, standard deviation, count).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "compare/csv_table.hpp"

namespace ddlsim {
inline namespace compare_layer {

enum class Metric { EpochTime, StepTime, SamplesPerSecond };
const char* to_string(Metric m);
// The metric column names, in the order they are looked for: epoch_time_s, step_time_s, samples_per_s.
const std::vector<std::pair<std::string, Metric>>& metric_columns();

// One scenario key set by a measured row, and where: "m.csv:12: column 'nodes'".
struct ConfigValue {
  std::string key;
  std::string value;
  std::string origin;
};

// The replications of one configuration.
struct MeasuredConfig {
  std::vector<ConfigValue> values;  // in column order; origins are those of the first row
  std::vector<int> lines;           // lines of the rows grouped here
  std::vector<double> samples;      // the metric of each replication
  double mean = 0;
  double stddev = 0;                // sample standard deviation (n - 1); 0 for one row
  int count() const { return int(samples.size()); }
  // "cluster.nodes=2 training.batch_per_gpu=64", for tables.
  std::string label() const;
  const std::string* find(const std::string& key) const;
};

struct MeasuredSet {
  std::string file;
  Metric metric = Metric::EpochTime;
  std::string metric_column;
  std::vector<std::string> keys;        // mapped scenario keys, in column order
  std::vector<MeasuredConfig> configs;  // in order of first appearance
};

// `maps` are "column=section.key". `metric` "" picks the first metric column present; "NAME" one
// of metric_columns(); "COLUMN=NAME" reads metric NAME from a column named otherwise
// (img_per_sec=samples_per_s). `values` are "column:cell=value": a cell's text stands for a
// scenario value (strategy:fit=tf_mirrored). Throws InputError naming file, line and column for a
// missing column, a non-numeric or non-positive metric cell, an unknown key in --map, a --value
// for a column that sets no key, or a file with no mapped column.
MeasuredSet read_measured(const CsvTable& table, const std::vector<std::string>& maps, const std::string& metric,
                          const std::vector<std::string>& values = {});

// Groups rows into configurations (identical values of every mapped column).
void add_row(MeasuredSet& set, std::vector<ConfigValue> values, int line, double value);
void finish_groups(MeasuredSet& set);

}  // namespace compare_layer
}  // namespace ddlsim
