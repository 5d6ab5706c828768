#include "sweep/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "report/report.hpp"
#include "scenario/resolve.hpp"

namespace ddlsim {

std::vector<Settings> expand_sweep(const ScenarioInput& in) {
  std::vector<Settings> configs{in.settings};
  for (const auto& [key, values] : in.sweep) {
    const auto given = in.sweep_origin.find(key);
    const std::string origin = given != in.sweep_origin.end() ? given->second : "[sweep] " + key;
    if (configs.size() * values.size() > kMaxSweepConfigs)
      throw InputError(origin + ": the sweep would run more than " + std::to_string(kMaxSweepConfigs) +
                       " configurations (the product of the lengths of its lists); split it into several sweeps");
    std::vector<Settings> next;
    for (const auto& base : configs)
      for (const auto& v : values) {
        Settings s = base;
        s[key] = Setting{v, origin, false};
        next.push_back(std::move(s));
      }
    configs = std::move(next);
  }
  return configs;
}

namespace {
SweepResult run_one(const Settings& s, const std::string& base_dir, const PlatformReader& read_platform) {
  SweepResult r{s, std::nullopt, ""};
  try {
    r.prediction = predict(resolve_scenario(s, base_dir, read_platform));
    prediction_record(*r.prediction);  // fails on a non-finite figure
  } catch (const std::exception& e) {
    r.prediction.reset();
    r.error = e.what();
  }
  return r;
}
}  // namespace

std::vector<SweepResult> run_sweep(const std::vector<Settings>& configs, const std::string& base_dir,
                                   int jobs, const Progress& progress, const PlatformReader& read_platform) {
  std::vector<SweepResult> results(configs.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex progress_mutex;
  auto worker = [&] {
    for (std::size_t i = next++; i < configs.size(); i = next++) {
      results[i] = run_one(configs[i], base_dir, read_platform);
      const std::size_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress(d, configs.size());
      }
    }
  };
  std::vector<std::thread> pool;
  const int threads = int(std::min<std::size_t>(std::max(jobs, 1), configs.size()));
  for (int j = 1; j < threads; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return results;
}

std::string render_sweep_csv(const std::vector<SweepResult>& results) {
  std::vector<std::string> result_columns;
  for (const auto& r : results)
    if (r.prediction) {
      const nlohmann::ordered_json rec = prediction_record(*r.prediction);
      for (const auto& [k, v] : rec.items()) result_columns.push_back(k);
      break;
    }
  std::string out;
  for (const auto& k : scenario_keys()) out += k.key + ",";
  for (const auto& c : result_columns) out += c + ",";
  out += "error\n";
  for (const auto& r : results) {
    for (const auto& k : scenario_keys()) out += csv_escape(r.settings.at(k.key).value) + ",";
    const nlohmann::ordered_json rec = r.prediction ? prediction_record(*r.prediction) : nlohmann::ordered_json();
    for (const auto& c : result_columns) out += (r.prediction ? csv_cell(rec[c]) : std::string()) + ",";
    out += csv_escape(r.error) + "\n";
  }
  return out;
}

}  // namespace ddlsim
