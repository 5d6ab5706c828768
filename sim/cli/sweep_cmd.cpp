// `ddlsim sweep FILE.ini [--jobs N] [--output FILE.csv] [--resume] [--report FILE.html]`: rows are written as they are
// ready, in configuration order. With --output, FILE.csv.sweep-state (the sweep's fingerprint and
// size) marks the file as unfinished until the last row is written; an interrupted sweep leaves
// complete rows, and --resume checks the fingerprint, drops a partly written last line, and runs
// the remaining configurations.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/commands.hpp"
#include "core/args.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "scenario/resolve.hpp"
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

// The sweep's state file: its fingerprint, its size, and the ddlsim that wrote it (another version
// may give other numbers: its rows would not join this one's).
std::string state_text(const std::string& fingerprint, std::size_t size) {
  return "ddlsim sweep state 1\nfingerprint " + fingerprint + "\nconfigurations " + std::to_string(size) + "\n" +
         version_text();
}

// --resume: the rows FILE already holds (a partly written last line is cut off).
std::size_t resumable_rows(const std::string& path, const std::string& expected_state, std::size_t expected_rows,
                           bool intervals) {
  const std::string state_path = path + ".sweep-state";
  std::ifstream state(state_path);
  if (!state) throw InputError(path + ": no interrupted sweep to resume (" + state_path + " is missing)");
  std::stringstream ss;
  ss << state.rdbuf();
  if (ss.str() != expected_state)
    throw InputError(state_path + ": the file was written by a different sweep (scenario, values, lists, the files "
                     "they name or the ddlsim version changed); run without --resume to start over");
  // Read in pieces, so a sweep of any size resumes in bounded memory.
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the sweep CSV");
  const std::string header = sweep_csv_header(intervals);
  std::string head(header.size(), '\0');
  in.read(head.data(), std::streamsize(head.size()));
  if (std::size_t(in.gcount()) != header.size() || head != header)
    throw InputError(path + ": its header is not this sweep's (with --intervals or without, as it began?); run "
                     "without --resume to start over");
  std::size_t rows = 0, complete = header.size(), offset = header.size();
  std::string piece(1 << 20, '\0');
  while (in.read(piece.data(), std::streamsize(piece.size())) || in.gcount() > 0) {
    const std::size_t n = std::size_t(in.gcount());
    for (std::size_t i = 0; i < n; ++i)
      if (piece[i] == '\n') ++rows, complete = offset + i + 1;
    offset += n;
  }
  if (rows > expected_rows)
    throw InputError(path + ": holds " + std::to_string(rows) + " rows, more than this sweep's " +
                     std::to_string(expected_rows) + " configurations; run without --resume to start over");
  if (complete < offset && ::truncate(path.c_str(), off_t(complete)) != 0)
    throw InputError(path + ": cannot cut off the partly written last row");
  return rows;
}

bool regular_or_missing(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode);
}
}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description own("sweep options");
  own.add_options()("jobs,j", po::value<int>()->default_value(int(std::max(1u, std::thread::hardware_concurrency()))),
                    "configurations run in parallel")(
      "output,o", po::value<std::string>()->default_value(""), "write the CSV to FILE")(
      "resume", po::bool_switch(), "finish an interrupted sweep of --output FILE")(
      "intervals", po::bool_switch(),
      "each row with its 80 % interval (the p10 and p90 columns `simulate` gives; about 7x the time)")(
      "report", po::value<std::string>()->default_value(""),
      "then write the study report (ddlsim report) of --output FILE.csv to FILE.html");
  const ParsedArgs pa = parse_args(args, own, "sweep");
  if (pa.positional.size() != 1) throw InputError("ddlsim sweep: expected one scenario file");
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
  const SweepDesign design(in);
  check_sweep_lists(design, in, dir_of(file));
  const std::string output = pa.vm["output"].as<std::string>();
  const bool resume = pa.vm["resume"].as<bool>();
  const bool to_file = !output.empty() && output != "-";
  if (resume && !to_file) throw InputError("ddlsim sweep: --resume needs --output FILE (the sweep to finish)");
  const std::string report = pa.vm["report"].as<std::string>();
  if (!report.empty() && !to_file) throw InputError("ddlsim sweep: --report needs --output FILE.csv (the report reads it)");
  if (!report.empty()) check_report_output(report);
  const bool with_state = to_file && regular_or_missing(output);
  const std::string state = state_text(sweep_fingerprint(in, dir_of(file)), design.size());

  SweepOptions opts{dir_of(file), jobs, terminal_progress(), 0, pa.vm["intervals"].as<bool>()};
  int fd = STDOUT_FILENO;
  if (to_file) {
    if (resume) opts.first = resumable_rows(output, state, design.size(), opts.intervals);
    fd = ::open(output.c_str(), resume ? (O_WRONLY | O_APPEND) : (O_WRONLY | O_CREAT | O_TRUNC), 0644);
    if (fd < 0) throw InputError(output + ": cannot open for writing");
    if (with_state && !resume) {
      std::ofstream(output + ".sweep-state") << state;
    }
  }
  if (!resume) write_fd(fd, sweep_csv_header(opts.intervals), output);
  std::string first_failure;
  const std::size_t failed = run_sweep(design, opts, [&](std::size_t, const SweepRow& r) {
    write_fd(fd, sweep_csv_row(r, opts.intervals), output);
    if (!r.record && first_failure.empty()) first_failure = r.error;
  });
  if (to_file) {
    ::close(fd);
    if (with_state) std::remove((output + ".sweep-state").c_str());
  }
  if (!report.empty()) {
    StudyOptions study;
    study.sweep_csv = output;
    study.output = report;
    report_study(study);
  }
  if (failed == 0) return 0;
  std::cerr << "ddlsim sweep: " << failed << " of " << design.size() - opts.first
            << " configurations failed; their rows say why (error column)\n";
  if (!first_failure.empty()) std::cerr << "  first failure: " << first_failure << "\n";
  return 2;
}

}  // namespace cli_layer
}  // namespace ddlsim
