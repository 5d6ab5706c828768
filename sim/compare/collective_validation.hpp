// `ddlsim validate --set nccl`: published nccl-tests logs of real clusters, in
// scenarios/validation/nccl/: index.csv (system, scenario, train_max_nodes, role, op, source) and a
// folder of logs per system. An index row is one system and one collective: it takes the folder's
// logs of that collective (each log's own, from its text or file name; the row's op where the log
// does not say). Per row: every log a priori per size band; the links fitted on the logs of at most
// train_max_nodes nodes (`fit LOG... --train-max-nodes`) and the larger logs scored per band beside
// "as measured at the largest fitted count". Totals pooled per collective over the development
// systems, and over the held-out ones apart (role held_out: set aside before their numbers were
// looked at; nothing was chosen on them). Collectives are never pooled together.
#pragma once
#include <string>
#include <vector>

#include "compare/collective_fit.hpp"
#include "compare/coverage.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace compare_layer {

struct CollectiveSystemResult {
  std::string system, role, source, scenario;
  Collective op = Collective::Allreduce;
  // How often the 80 % interval a training prediction gives its NCCL exchanges (predict/uncertainty.hpp:
  // measured / a priori time of the development allreduce logs, 1 MiB and more, across nodes or
  // inside one node) holds this system's logs at the sizes it covers.
  Coverage coverage;
  std::vector<CollectiveLog> logs;
  std::vector<BandScore> a_priori;  // every log; only a_priori is set
  CollectiveFit fit;                // scale_out empty when no log is larger than train_max_nodes
};

// One collective's pooled tables: systems across nodes (some log on more than one node), and those
// measured inside one node apart (no network: NVLink, NVSwitch or PCIe alone).
struct CollectivePools {
  Collective op = Collective::Allreduce;
  std::vector<BandScore> dev_a_priori, dev_scale_out, held_out_a_priori, held_out_scale_out;
  std::vector<BandScore> dev_one_node, held_out_one_node;  // a priori
  Coverage dev_coverage, held_out_coverage, dev_one_node_coverage, held_out_one_node_coverage;
};

struct CollectiveValidation {
  std::string folder;
  std::vector<CollectiveSystemResult> systems;
  std::vector<CollectivePools> pools;  // one a collective the index has, in Collective's order
};

// `overrides` (--section.key=value) apply to every system's scenario. Throws InputError naming the
// index's line for a missing folder, scenario or log, or a row none of whose logs measured its op.
CollectiveValidation run_collective_validation(const std::string& folder, const std::vector<std::string>& overrides);
// Markdown tables (table and markdown) or JSON.
std::string render_collective_validation(const CollectiveValidation& v, Format f);

}  // namespace compare_layer
}  // namespace ddlsim
