// `ddlsim sweep FILE.ini [--jobs N] [--output FILE.csv] [--resume] [--report FILE.html]`: rows are written as they are
// ready, in configuration order. With --output, FILE.csv.sweep-state (the sweep's fingerprint and
// size) marks the file as unfinished until the last row is written; an interrupted sweep leaves
// complete rows, and --resume checks the fingerprint, drops a partly written last line, and runs
// the remaining configurations. `--shard I/N` (or `auto`, from a Slurm array task's environment)
// runs one shard's configurations (sweep/shard.hpp) and leaves FILE.csv.shard when done;
// `ddlsim sweep FILE.ini --merge SHARD.csv... --output ALL.csv` joins them (cli/sweep_files.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/commands.hpp"
#include "core/args.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "scenario/resolve.hpp"
#include "cli/sweep_files.hpp"
#include "study/study_report.hpp"
#include "sweep/sweep.hpp"

namespace po = boost::program_options;

namespace ddlsim {
inline namespace cli_layer {

namespace {
// A one-line progress bar on stderr, only when stderr is a terminal.
Progress terminal_progress() {
  if (!::isatty(STDERR_FILENO)) return nullptr;
  return [](std::size_t done, std::size_t total) {
    const int width = 30;
    const int filled = int(width * done / total);
    std::fprintf(stderr, "\r[%s%s] %zu/%zu configurations", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), done, total);
    if (done == total) std::fprintf(stderr, "\n");
  };
}

void write_fd(int fd, const std::string& text, const std::string& path) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) throw InputError(path + ": cannot write the sweep's rows");
    done += std::size_t(n);
  }
}

bool regular_or_missing(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode);
}

std::size_t shard_number(const std::string& text, const std::string& what) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(what + ": expected a whole number");
  return std::stoul(text);
}

// --shard I/N, or auto: a Slurm array task's (its id less the array's first, of the array's count).
std::optional<Shard> shard_option(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t index = 0, count = 0;
  if (text == "auto") {
    const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
    const char* n = std::getenv("SLURM_ARRAY_TASK_COUNT");
    const char* min = std::getenv("SLURM_ARRAY_TASK_MIN");
    const char* step = std::getenv("SLURM_ARRAY_TASK_STEP");
    if (!id || !n)
      throw InputError("ddlsim sweep: --shard auto: SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT are not set (not a "
                       "Slurm array task); give --shard I/N");
    if (step && std::string(step) != "1")
      throw InputError("ddlsim sweep: --shard auto: the array's step is " + std::string(step) +
                       "; submit it as --array=0-(N-1) (scripts/slurm_sweep.sh does)");
    const std::size_t first = min ? shard_number(min, "SLURM_ARRAY_TASK_MIN") : 0;
    const std::size_t task = shard_number(id, "SLURM_ARRAY_TASK_ID");
    count = shard_number(n, "SLURM_ARRAY_TASK_COUNT");
    if (task < first) throw InputError("ddlsim sweep: --shard auto: SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN");
    index = task - first;
  } else {
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) throw InputError("ddlsim sweep: --shard " + text + ": expected I/N (0 <= I < N) or auto");
    index = shard_number(text.substr(0, slash), "ddlsim sweep: --shard " + text + ": I");
    count = shard_number(text.substr(slash + 1), "ddlsim sweep: --shard " + text + ": N");
  }
  if (count < 1 || count > kMaxShards || index >= count)
    throw InputError("ddlsim sweep: --shard " + text + ": expected I/N with 0 <= I < N <= " + std::to_string(kMaxShards) +
                     " (got " + std::to_string(index) + "/" + std::to_string(count) + ")");
  return Shard{index, count};
}

}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description own("sweep options");
  own.add_options()("jobs,j", po::value<int>()->default_value(int(std::max(1u, std::thread::hardware_concurrency()))),
                    "configurations run in parallel")(
      "output,o", po::value<std::string>()->default_value(""), "write the CSV to FILE")(
      "resume", po::bool_switch(), "finish an interrupted sweep of --output FILE")(
      "intervals", po::bool_switch(),
      "each row with its 80 % interval (the p10 and p90 columns `simulate` gives; about twice the time)")(
      "shard", po::value<std::string>()->default_value(""),
      "I/N: run only shard I (0 to N-1) of N, to --output FILE (FILE.shard records it when done); auto: a Slurm "
      "array task's")(
      "merge", po::bool_switch(), "join the shards' CSV files given after the scenario into --output FILE")(
      "report", po::value<std::string>()->default_value(""),
      "then write the study report (ddlsim report) of --output FILE.csv to FILE.html");
  const ParsedArgs pa = parse_args(args, own, "sweep");
  const bool merge = pa.vm["merge"].as<bool>();
  if (pa.positional.empty() || (pa.positional.size() != 1 && !merge))
    throw InputError("ddlsim sweep: expected one scenario file" + std::string(pa.positional.size() > 1 ? " (shard files only with --merge)" : ""));
  const int jobs = pa.vm["jobs"].as<int>();
  if (jobs < 1 || jobs > kMaxSweepJobs)
    throw InputError("ddlsim sweep: --jobs = " + std::to_string(jobs) + ": expected an integer from 1 to " +
                     std::to_string(kMaxSweepJobs));
  const std::string file = pa.positional.front();
  const ScenarioInput in = read_scenario(file, pa.overrides);
  if (in.sweep.empty())
    throw InputError(file + ": the [sweep] section is empty; list values as `section.key = v1, v2`");
  for (const auto& [key, values] : in.sweep)
    if (in.settings.at(key).origin == "command line")
      throw InputError("command line: --" + key + " is swept by " + in.sweep_origin.at(key) +
                       "; expected either the sweep or one value (change the list with --sweep." + key + "=V1,V2)");
  const std::optional<Shard> shard = shard_option(pa.vm["shard"].as<std::string>());
  const std::string output = pa.vm["output"].as<std::string>();
  const bool resume = pa.vm["resume"].as<bool>();
  const bool to_file = !output.empty() && output != "-";
  const std::string report = pa.vm["report"].as<std::string>();
  if (merge && (shard || resume || pa.vm["intervals"].as<bool>()))
    throw InputError("ddlsim sweep: --merge joins finished shards; --shard, --resume and --intervals belong to the shards' runs");
  if (shard && !to_file) throw InputError("ddlsim sweep: --shard needs --output FILE (a shard's rows and its record)");
  if (shard && !report.empty()) throw InputError("ddlsim sweep: --report reads the whole sweep: give it to the run with --merge");
  if (resume && !to_file) throw InputError("ddlsim sweep: --resume needs --output FILE (the sweep to finish)");
  if (!report.empty() && !to_file) throw InputError("ddlsim sweep: --report needs --output FILE.csv (the report reads it)");
  if (!report.empty()) check_report_output(report);
  const SweepDesign whole(in);
  SweepIdentity id{sweep_fingerprint(in, dir_of(file)), whole.full_size(), shard};

  std::size_t failed = 0, ran = 0;
  std::string first_failure;
  if (merge) {
    failed = merge_shards(id, {pa.positional.begin() + 1, pa.positional.end()}, output);
    ran = whole.size();
  } else {
    check_sweep_lists(whole, in, dir_of(file));
    const SweepDesign design = shard ? whole.sharded(*shard) : whole;
    const bool with_state = to_file && regular_or_missing(output);
    const std::string state = state_text(id);
    SweepOptions opts{dir_of(file), jobs, terminal_progress(), 0, pa.vm["intervals"].as<bool>()};
    int fd = STDOUT_FILENO;
    if (to_file) {
      if (resume) opts.first = resumable_rows(output, state, design.size(), opts.intervals);
      fd = ::open(output.c_str(), resume ? (O_WRONLY | O_APPEND) : (O_WRONLY | O_CREAT | O_TRUNC), 0644);
      if (fd < 0) throw InputError(output + ": cannot open for writing");
      if (with_state && !resume) {
        std::remove((output + ".shard").c_str());
        std::ofstream(output + ".sweep-state") << state;
      }
    }
    if (!resume) write_fd(fd, sweep_csv_header(opts.intervals), output);
    failed = run_sweep(design, opts, [&](std::size_t, const SweepRow& r) {
      write_fd(fd, sweep_csv_row(r, opts.intervals), output);
      if (!r.record && first_failure.empty()) first_failure = r.error;
    });
    ran = design.size() - opts.first;
    if (to_file) {
      ::close(fd);
      if (shard && with_state) std::ofstream(output + ".shard") << shard_record_text(id, design.size());
      if (with_state) std::remove((output + ".sweep-state").c_str());
    }
  }
  if (!report.empty()) {
    StudyOptions study;
    study.sweep_csv = output;
    study.output = report;
    report_study(study);
  }
  if (failed == 0) return 0;
  std::cerr << "ddlsim sweep: " << failed << " of " << ran << " configurations failed; their rows say why (error column)\n";
  if (!first_failure.empty()) std::cerr << "  first failure: " << first_failure << "\n";
  return 2;
}

}  // namespace cli_layer
}  // namespace ddlsim
