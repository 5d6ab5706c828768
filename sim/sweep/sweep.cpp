#include "sweep/sweep.hpp"

#include <sys/stat.h>

#include <fstream>

#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <map>
#include <thread>

#include "core/error.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "report/report.hpp"

namespace ddlsim {
inline namespace sweep_layer {

SweepDesign::SweepDesign(const ScenarioInput& in) : base_(in.settings), size_(1) {
  for (const auto& [key, values] : in.sweep) {
    const auto given = in.sweep_origin.find(key);
    const std::string origin = given != in.sweep_origin.end() ? given->second : "[sweep] " + key;
    if (size_ * values.size() > kMaxSweepConfigs)
      throw InputError(origin + ": the sweep would run more than " + std::to_string(kMaxSweepConfigs) +
                       " configurations (the product of the lengths of its lists); split it into several sweeps");
    size_ *= values.size();
    factors_.emplace_back(key, values);
    origins_.push_back(origin);
  }
}

SweepDesign::SweepDesign(std::vector<Settings> configs) : list_(std::move(configs)), size_(list_.size()) {}

SweepDesign SweepDesign::sharded(const Shard& s) const {
  SweepDesign d = *this;
  d.shard_ = s;
  return d;
}

Settings SweepDesign::config(std::size_t i) const {
  if (shard_.count > 1) i = shard_config(i, shard_);
  if (!list_.empty()) return list_.at(i);
  Settings s = base_;
  for (std::size_t f = factors_.size(); f-- > 0;) {  // the last key varies fastest
    const auto& [key, values] = factors_[f];
    s[key] = Setting{values[i % values.size()], origins_[f], false};
    i /= values.size();
  }
  return s;
}

void check_sweep_lists(const SweepDesign& design, const ScenarioInput& in, const std::string& base_dir) {
  if (design.size() == 0) return;
  const Settings first = design.config(0);
  for (const auto& [key, values] : in.sweep) {
    std::string first_error;
    bool resolves = false;
    for (const std::string& v : values) {
      Settings s = first;
      s[key].value = v;
      try {
        resolve_scenario(s, base_dir);
        resolves = true;
      } catch (const InputError& e) {
        // An error about another key says nothing of this list.
        resolves = std::string(e.what()).find(key) == std::string::npos;
        if (first_error.empty()) first_error = e.what();
      }
      if (resolves) break;
    }
    if (!resolves) {
      const auto given = in.sweep_origin.find(key);
      throw InputError((given != in.sweep_origin.end() ? given->second : "[sweep] " + key) +
                       ": no value of the list is valid, so every configuration would fail; the first: " + first_error);
    }
  }
}

std::vector<Settings> expand_sweep(const ScenarioInput& in) {
  const SweepDesign d(in);
  std::vector<Settings> out;
  out.reserve(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) out.push_back(d.config(i));
  return out;
}

namespace {

// Whether the configuration forks (SimGrid runs in a child): never from a thread pool.
bool needs_fork(const Settings& s) {
  const std::string backend = to_lower(s.at("simulation.backend").value);
  const std::string platform = to_lower(s.at("cluster.platform").value);
  return backend == "simgrid" || (platform.size() > 4 && platform.substr(platform.size() - 4) == ".xml");
}

// What a thread keeps from one configuration for the next: its model and compute profiles.
struct ThreadMemo {
  ResolveMemo resolved;
  ProfileMemo profiles;
};

SweepRow run_one(Settings s, const SweepOptions& o, ThreadMemo* memo = nullptr) {
  SweepRow r{std::move(s), std::nullopt, ""};
  try {
    const Scenario sc = resolve_scenario(r.settings, o.base_dir, memo ? &memo->resolved : nullptr);
    Prediction p = memo ? predict(sc, memo->profiles.profiles(sc, r.settings)) : predict(sc);
    if (o.intervals) p.uncertainty = prediction_uncertainty(sc, p);
    r.record = prediction_record(p);
  } catch (const std::exception& e) {
    r.record.reset();
    r.error = e.what();
  }
  return r;
}

void run_on_threads(std::vector<SweepRow>& rows, const std::vector<std::size_t>& which, const SweepOptions& o) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    ThreadMemo memo;  // this thread's last model and profiles: a sweep's configurations mostly share them
    for (std::size_t k = next++; k < which.size(); k = next++)
      rows[which[k]] = run_one(std::move(rows[which[k]].settings), o, &memo);
  };
  std::vector<std::thread> pool;
  const int threads = int(std::min<std::size_t>(std::max(o.jobs, 1), which.size()));
  for (int j = 1; j < threads; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

// ---- child processes, started from the single-threaded parent ------------------------------

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::size_t row = 0;
  std::string answer;
};

// `kept`: what the parent resolved before the fork (the child works on its own copy).
Child start_child(const Settings& s, std::size_t row, const SweepOptions& o, ThreadMemo& kept) {
  const ChildProcess p = fork_with_pipe("sweep", [&](int fd) {
    const SweepRow r = run_one(s, o, &kept);
    const std::string out = r.record ? "ok\n" + r.record->dump() : "error\n" + r.error;
    for (std::size_t done = 0; done < out.size();) {
      const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += std::size_t(n);
    }
  });
  return {p.pid, p.fd, row, ""};
}

void finish_child(Child& c, SweepRow& row) {
  ::close(c.fd);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  const auto nl = c.answer.find('\n');
  const std::string kind = c.answer.substr(0, nl), body = nl == std::string::npos ? "" : c.answer.substr(nl + 1);
  if (kind == "ok") {
    row.record = nlohmann::ordered_json::parse(body);
  } else if (kind == "error") {
    row.error = body;
  } else {
    row.error = WIFSIGNALED(status) ? "the configuration's process stopped with signal " + std::to_string(WTERMSIG(status))
                                    : "the configuration's process ended without an answer";
  }
}

// At most `jobs` children at once, their pipes read as answers arrive. The parent resolves each
// configuration first into `kept` (the whole sweep's), so that a platform file is parsed once (by
// the parent, the first time) and a model built once while its keys stay: the children inherit
// what it kept. A configuration the parent cannot resolve is left to its child, which reports the
// error.
void run_in_children(std::vector<SweepRow>& rows, const std::vector<std::size_t>& which, const SweepOptions& o,
                     ThreadMemo& kept) {
  std::vector<Child> running;
  std::size_t next = 0;
  while (next < which.size() || !running.empty()) {
    while (next < which.size() && int(running.size()) < std::max(o.jobs, 1)) {
      const Settings& s = rows[which[next]].settings;
      try {
        resolve_scenario(s, o.base_dir, &kept.resolved);
      } catch (const std::exception&) {
      }
      running.push_back(start_child(s, which[next], o, kept));
      ++next;
    }
    std::vector<pollfd> fds;
    for (const auto& c : running) fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) throw std::runtime_error("sweep: poll failed");
    for (std::size_t k = running.size(); k-- > 0;) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = ::read(running[k].fd, buf, sizeof buf);
      if (n > 0) {
        running[k].answer.append(buf, std::size_t(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      finish_child(running[k], rows[running[k].row]);
      running.erase(running.begin() + long(k));
    }
  }
}

}  // namespace

std::size_t sweep_window(const SweepDesign& design, std::size_t start, int jobs) {
  const std::size_t j = std::size_t(std::max(jobs, 1));
  return needs_fork(design.config(start)) ? 2 * j : std::max<std::size_t>(256, 16 * j);
}

std::size_t run_sweep(const SweepDesign& design, const SweepOptions& opts, const RowSink& sink) {
  // A window of rows at a time: threads, then (with no thread left) children, then the rows in order.
  std::size_t failed = 0;
  ThreadMemo parent;  // what the parent resolved for the children it starts (run_in_children)
  for (std::size_t start = opts.first, end = 0; start < design.size(); start = end) {
    end = std::min(design.size(), start + sweep_window(design, start, opts.jobs));
    std::vector<SweepRow> rows(end - start);
    std::vector<std::size_t> threaded, forked;
    for (std::size_t i = start; i < end; ++i) {
      rows[i - start].settings = design.config(i);
      (needs_fork(rows[i - start].settings) ? forked : threaded).push_back(i - start);
    }
    run_on_threads(rows, threaded, opts);
    run_in_children(rows, forked, opts, parent);
    for (std::size_t i = start; i < end; ++i) {
      if (!rows[i - start].record) ++failed;
      sink(i, rows[i - start]);
      if (opts.progress) opts.progress(i + 1, design.size());
    }
  }
  return failed;
}

std::vector<SweepRow> run_sweep(const std::vector<Settings>& configs, const std::string& base_dir, int jobs,
                                const Progress& progress) {
  std::vector<SweepRow> out;
  SweepOptions o{base_dir, jobs, progress, 0};
  run_sweep(SweepDesign(configs), o, [&](std::size_t, const SweepRow& r) { out.push_back(r); });
  return out;
}

namespace {
// A prediction of no configuration, for the result columns' names (with or without the interval's).
Prediction empty_prediction(bool intervals) {
  Prediction p;
  if (intervals) p.uncertainty = Uncertainty{};
  return p;
}
}  // namespace

std::string sweep_csv_header(bool intervals) {
  std::string out;
  for (const auto& k : scenario_keys()) out += k.key + ",";
  const nlohmann::ordered_json columns = prediction_record(empty_prediction(intervals));  // the keys; values unused
  for (const auto& [k, v] : columns.items()) out += k + ",";
  return out + "error\n";
}

std::string sweep_csv_row(const SweepRow& r, bool intervals) {
  std::string out;
  for (const auto& k : scenario_keys()) out += csv_escape(r.settings.at(k.key).value) + ",";
  if (r.record)
    for (const auto& [k, v] : r.record->items()) out += csv_cell(v) + ",";
  else
    out += std::string(prediction_record(empty_prediction(intervals)).size(), ',');  // the result columns left blank
  return out + csv_escape(r.error) + "\n";
}

namespace {

// FNV-1a 64 over `text`, continuing from `h`.
std::uint64_t fnv1a(std::uint64_t h, const std::string& text) {
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// The bytes of a value that names a regular file (a model, calibration or platform file, relative
// to the scenario's folder or absolute), read in pieces; "" for any other value.
std::string file_digest(const std::string& value, const std::string& base_dir) {
  if (value.empty() || value.size() > 4096) return "";
  const std::string path = value.front() == '/' || base_dir.empty() ? value : base_dir + "/" + value;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::ifstream f(path, std::ios::binary);
  std::uint64_t h = 1469598103934665603ULL;
  std::string piece(1 << 16, '\0');
  while (f.read(piece.data(), std::streamsize(piece.size())) || f.gcount() > 0)
    h = fnv1a(h, piece.substr(0, std::size_t(f.gcount())));
  return fmt::format(" file {:016x} {}", h, st.st_size);
}

}  // namespace

std::string sweep_fingerprint(const ScenarioInput& in, const std::string& base_dir) {
  std::string text;
  for (const auto& [key, s] : in.settings) text += key + "=" + s.value + file_digest(s.value, base_dir) + "\n";
  for (const auto& [key, values] : in.sweep) {
    text += "[sweep]" + key;
    for (const auto& v : values) text += "," + v + file_digest(v, base_dir);
    text += "\n";
  }
  return fmt::format("{:016x}", fnv1a(1469598103934665603ULL, text));
}

}  // namespace sweep_layer
}  // namespace ddlsim
