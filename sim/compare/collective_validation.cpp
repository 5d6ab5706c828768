#include "compare/collective_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "compare/compare_report.hpp"
#include "compare/csv_table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "predict/uncertainty.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

namespace ddlsim {
inline namespace compare_layer {

namespace {

// The logs in a system's folder, by name (*.log).
std::vector<std::string> log_files(const std::string& dir, const std::string& where) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(where + ": no folder " + dir);
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".log") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw InputError(where + ": no *.log file in " + dir);
  return out;
}

// Every log of the system on one node: no network in any of them.
bool one_node(const CollectiveSystemResult& r) {
  return std::all_of(r.logs.begin(), r.logs.end(), [](const CollectiveLog& l) { return l.nodes == 1; });
}

// The sizes of 1 MiB and more whose measured / a priori time lies within the interval (inside one
// node's on a log of one node, across nodes' on the others).
Coverage nccl_interval_coverage(const CollectivePoints& pts) {
  const FitTarget target = collective_target(pts);
  Coverage c;
  for (std::size_t i = 0; i < pts.bases.size(); ++i) {
    if (size_band(pts.bytes[i]) == 0) continue;  // below 1 MiB
    const bool node = pts.nodes[i] == 1;
    const double lo = node ? kNcclNodeTimeP10 : kNcclTimeP10, hi = node ? kNcclNodeTimeP90 : kNcclTimeP90;
    const double ratio = pts.measured_s[i] / target.predicted(i, pts.bases[i]);
    ++c.n;
    c.inside += ratio >= lo && ratio <= hi;
    c.half_widths.push_back((hi - lo) / 2);
  }
  return c;
}

CollectiveSystemResult run_system(const std::string& folder, const CsvTable& index, const CsvRow& row,
                                  const std::vector<std::string>& overrides) {
  const auto cell = [&](const char* name) { return row.cells[std::size_t(index.column(name))]; };
  CollectiveSystemResult r;
  r.system = cell("system");
  r.role = cell("role");
  r.source = cell("source");
  r.scenario = folder + "/" + cell("scenario");
  const std::string where = index.where(row, index.column("system"));
  if (r.role != "dev" && r.role != "held_out")
    throw InputError(index.where(row, index.column("role")) + ": role = '" + r.role + "': expected dev or held_out");
  const double train_max_value = csv_number(index, row, index.column("train_max_nodes"));
  if (train_max_value < 1 || train_max_value > 65536 || train_max_value != std::floor(train_max_value))
    throw InputError(index.where(row, index.column("train_max_nodes")) + ": expected a node count from 1 to 65536");
  const int train_max = int(train_max_value);
  r.op = parse_collective(cell("op"), index.where(row, index.column("op")));
  for (const std::string& file : log_files(folder + "/" + r.system, where)) {
    CollectiveLog log = read_collective_log(read_text_file(file, "nccl-tests log"), file, std::nullopt, r.op);
    if (log.op == r.op) r.logs.push_back(std::move(log));
  }
  if (r.logs.empty())
    throw InputError(where + ": no log of " + r.system + "/ measured " + to_string(r.op) +
                     " (the text or file name of each names its collective)");
  const ScenarioInput in = read_scenario(r.scenario, overrides);
  const CollectivePoints pts = collective_points(r.logs, in.settings, dir_of(r.scenario));
  r.a_priori = score_bands(pts, pts.bases, std::vector<double>(pts.bases.size(), NAN));
  r.coverage = nccl_interval_coverage(pts);
  const bool larger = std::any_of(pts.nodes.begin(), pts.nodes.end(), [&](int n) { return n > train_max; });
  std::vector<std::string> params = default_collective_parameters(pts);
  const int plugin = index.column("net_plugin");
  const std::string via_plugin = plugin >= 0 ? trim(row.cells[std::size_t(plugin)]) : "";
  if (via_plugin != "" && via_plugin != "yes")
    throw InputError(index.where(row, plugin) + ": net_plugin = '" + via_plugin + "': expected yes or nothing");
  if (via_plugin == "yes") params.push_back("net_rendezvous");  // a network plugin's rendezvous
  r.fit = fit_collectives(pts, params, larger ? train_max : 0);
  return r;
}

}  // namespace

CollectiveValidation run_collective_validation(const std::string& folder, const std::vector<std::string>& overrides) {
  CollectiveValidation v;
  v.folder = folder;
  const CsvTable index = read_csv_file(folder + "/index.csv");
  for (const char* c : {"system", "scenario", "train_max_nodes", "role", "op", "source"})
    if (index.column(c) < 0) throw InputError(index.file + ":1: missing column '" + std::string(c) + "'");
  for (const CsvRow& row : index.rows) v.systems.push_back(run_system(folder, index, row, overrides));
  for (int op = int(Collective::Allreduce); op <= int(Collective::Alltoall); ++op) {
    std::vector<std::vector<BandScore>> dev_prior, dev_out, held_prior, held_out, dev_node, held_node;
    Coverage covered[2][2];  // [dev][one node]
    for (const CollectiveSystemResult& r : v.systems) {
      if (int(r.op) != op) continue;
      const bool dev = r.role == "dev";
      covered[dev][one_node(r)].add(r.coverage);
      if (one_node(r)) {
        (dev ? dev_node : held_node).push_back(r.a_priori);
        continue;
      }
      (dev ? dev_prior : held_prior).push_back(r.a_priori);
      if (!r.fit.scale_out.empty()) (dev ? dev_out : held_out).push_back(r.fit.scale_out);
    }
    if (dev_prior.empty() && held_prior.empty() && dev_node.empty() && held_node.empty()) continue;
    v.pools.push_back({Collective(op), pool_bands(dev_prior), pool_bands(dev_out), pool_bands(held_prior),
                       pool_bands(held_out), pool_bands(dev_node), pool_bands(held_node), covered[1][0],
                       covered[0][0], covered[1][1], covered[0][1]});
  }
  return v;
}

namespace {

std::string nodes_of(const std::vector<CollectiveLog>& logs) {
  std::vector<int> n;
  for (const auto& l : logs) n.push_back(l.nodes);
  std::sort(n.begin(), n.end());
  std::string out;
  for (int v : n) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

// " (GPUs a thread, nccl-tests -g: 4, 1)", in the order of nodes_of, where some log ran one thread
// driving several GPUs.
std::string threads_of(const std::vector<CollectiveLog>& logs) {
  std::vector<std::pair<int, int>> by_nodes;
  for (const auto& l : logs) by_nodes.push_back({l.nodes, l.out.gpus_per_thread});
  std::stable_sort(by_nodes.begin(), by_nodes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  bool several = false;
  for (const auto& [nodes, g] : by_nodes) {
    out += (out.empty() ? "" : ", ") + std::to_string(g);
    several = several || g > 1;
  }
  return several ? " (GPUs a thread, nccl-tests -g: " + out + ")" : "";
}

// One table of bands: a priori over every log, then the scale-out columns where there are some.
std::string bands_md(const std::vector<BandScore>& prior, const std::vector<BandScore>& out, int largest) {
  const std::string at = largest > 0 ? std::to_string(largest) + " node(s)" : "the largest fitted count";
  std::string t = "| band | a priori, every log | n | larger logs, a priori | fitted on the small | as measured at " + at +
                  " | n |\n|---|---|---|---|---|---|---|\n";
  for (std::size_t b = 0; b < prior.size(); ++b) {
    t += fmt::format("| {} | {} | {} |", prior[b].band, mape_bias_cell(prior[b].a_priori), prior[b].a_priori.n);
    if (b < out.size() && out[b].a_priori.n > 0)
      t += fmt::format(" {} | {} | {} | {} |\n", mape_bias_cell(out[b].a_priori), mape_bias_cell(out[b].calibrated), mape_bias_cell(out[b].baseline),
                       out[b].a_priori.n);
    else
      t += " - | - | - | 0 |\n";
  }
  return t;
}

std::string fitted_values(const EffectiveFit& eff) {
  std::string out;
  for (const auto& p : eff.params) {
    if (!p.identifiable) continue;
    out += fmt::format("{}`{}` {:.4g} -> {:.4g}{}", out.empty() ? "" : ", ", p.key, p.before, p.after,
                       p.note.empty() ? "" : " (" + p.note + ")");
  }
  return out.empty() ? "nothing identifiable" : out;
}

nlohmann::ordered_json bands_json(const std::vector<BandScore>& bs) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const BandScore& b : bs)
    a.push_back({{"band", b.band}, {"a_priori", stats_record(b.a_priori)}, {"fitted", stats_record(b.calibrated)},
                 {"baseline", stats_record(b.baseline)}});
  return a;
}

std::string render_json(const CollectiveValidation& v) {
  nlohmann::ordered_json j;
  j["systems"] = nlohmann::ordered_json::array();
  for (const auto& s : v.systems)
    j["systems"].push_back({{"system", s.system}, {"op", to_string(s.op)}, {"role", s.role}, {"source", s.source},
                            {"largest_fitted_nodes", s.fit.largest_fitted}, {"a_priori", bands_json(s.a_priori)},
                            {"scale_out", bands_json(s.fit.scale_out)}});
  j["pools"] = nlohmann::ordered_json::object();
  const auto cover = [](const Coverage& c) { return nlohmann::ordered_json{{"inside", c.inside}, {"n", c.n}}; };
  for (const CollectivePools& p : v.pools)
    j["pools"][to_string(p.op)] = {
        {"dev",
         {{"a_priori", bands_json(p.dev_a_priori)}, {"scale_out", bands_json(p.dev_scale_out)},
          {"interval_80", cover(p.dev_coverage)}}},
        {"held_out",
         {{"a_priori", bands_json(p.held_out_a_priori)}, {"scale_out", bands_json(p.held_out_scale_out)},
          {"interval_80", cover(p.held_out_coverage)}}},
        {"dev_one_node", {{"a_priori", bands_json(p.dev_one_node)}, {"interval_80", cover(p.dev_one_node_coverage)}}},
        {"held_out_one_node",
         {{"a_priori", bands_json(p.held_out_one_node)}, {"interval_80", cover(p.held_out_one_node_coverage)}}}};
  return j.dump(2) + "\n";
}

bool has_rows(const std::vector<BandScore>& bands) { return !bands.empty() && bands.back().a_priori.n > 0; }

}  // namespace

std::string render_collective_validation(const CollectiveValidation& v, Format f) {
  if (f == Format::Json) return render_json(v);
  // Markdown tables: the table format, and docs/validation-collectives.md.
  std::string out = "# Collectives on real clusters\n\n"
                    "Generated by `ddlsim validate --set nccl` from the published nccl-tests logs in\n"
                    "`scenarios/validation/nccl/` (sources in its README and sources.csv); a test holds this page to\n"
                    "the program's"
                    " output. Time per size band: MAPE (bias, the mean signed error, both %; negative: ddlsim too\n"
                    "fast). \"A priori\": the system's scenario as it is. \"Fitted on the small\": the links fitted\n"
                    "(`fit LOG... --train-max-nodes N`) on the logs of the fewest nodes, scored on the larger logs,\n"
                    "beside the time as measured at the largest fitted count for the same size; where NCCL runs through\n"
                    "a network plugin (index.csv `net_plugin`), its rendezvous is fitted too (`--params ...,net_rendezvous`,\n"
                    "docs/calibration.md). Each collective is\n"
                    "pooled apart. Under a pool, how often the 80 % interval `simulate` gives an NCCL exchange (docs/model.md,\n"
                    "\"How sure\") holds the measured time, a priori, from 1 MiB: that interval is the development allreduce\n"
                    "logs' own spread (in-sample there, about 80 % by construction); every other pool checks it.\n";
  const auto section = [&](const std::string& title, const std::vector<BandScore>& prior,
                           const std::vector<BandScore>& so, const Coverage& c) {
    if (!has_rows(prior)) return;
    out += fmt::format("\n### {}\n\n", title) + bands_md(prior, so, 0);
    if (c.n > 0)
      out += fmt::format("\nThe 80 % interval of a prediction's NCCL exchanges holds {} of the {} sizes of 1 MiB and more "
                         "({:.0f} %).\n", c.inside, c.n, 100.0 * c.inside / c.n);
  };
  const std::string held = " (set aside before their numbers were looked at)";
  for (const CollectivePools& p : v.pools) {
    out += fmt::format("\n## {}\n", to_string(p.op));
    section("Development systems across nodes, pooled", p.dev_a_priori, p.dev_scale_out, p.dev_coverage);
    section("Held-out systems across nodes, pooled" + held, p.held_out_a_priori, p.held_out_scale_out,
            p.held_out_coverage);
    if (p.op == Collective::Allreduce && has_rows(p.held_out_a_priori))
      out += "\nThe held-out EFA clusters' logs in the table above have since been seen twice, by variants that charged\n"
             "a network plugin's reported latency to the time as it runs (both were dropped for what NCCL does):\n"
             "docs/design.md, \"NCCL's network plugin\". CSCS Alps's GH200 logs (the only held-out system with\n"
             "several node counts: its scale-out rows) were scored once, blind, with the model as it stood.\n";
    section("Development systems inside one node, pooled", p.dev_one_node, {}, p.dev_one_node_coverage);
    section("Held-out systems inside one node, pooled" + held, p.held_out_one_node, {}, p.held_out_one_node_coverage);
    if (p.op == Collective::Allreduce && has_rows(p.held_out_one_node))
      out += "\nThe held-out one-node table above had been read before ddlsim predicted what nccl-tests reports when one\n"
             "thread drives several GPUs (compare/bench_output.hpp `benchmark_time_s`); that constant comes from nccl-tests\n"
             "issue 123, not from this table.\n";
  }
  out += "\n## Systems\n";
  for (const auto& s : v.systems) {
    out += fmt::format("\n### {}, {} ({})\n\n{} log(s) on {} node(s){}; scenario `{}`; source: {}\n\n", s.system,
                       to_string(s.op), s.role == "dev" ? "development" : "held out", s.logs.size(), nodes_of(s.logs),
                       threads_of(s.logs), s.scenario.substr(v.folder.size() + 1), s.source);
    out += "Fitted on " + s.fit.fitted_on + ": " + fitted_values(s.fit.eff) + ".\n\n";
    out += bands_md(s.a_priori, s.fit.scale_out, s.fit.largest_fitted);
  }
  return out;
}

}  // namespace compare_layer
}  // namespace ddlsim
