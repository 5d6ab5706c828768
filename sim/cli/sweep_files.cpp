#include "cli/sweep_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace ddlsim {
inline namespace cli_layer {

namespace {

std::string shard_line(const Shard& s) { return "shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + "\n"; }

std::string identity_lines(const SweepIdentity& id) {
  return "fingerprint " + id.fingerprint + "\nconfigurations " + std::to_string(id.configurations) + "\n" +
         (id.shard ? shard_line(*id.shard) : "");
}

// The value after `key ` on its line of `text`, or "".
std::string field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + " ", 0) == 0) return line.substr(key.size() + 1);
  return "";
}

}  // namespace

std::string state_text(const SweepIdentity& id) { return "ddlsim sweep state 1\n" + identity_lines(id) + version_text(); }

std::string shard_record_text(const SweepIdentity& id, std::size_t rows) {
  return "ddlsim sweep shard 1\n" + identity_lines(id) + "rows " + std::to_string(rows) + "\n" + version_text();
}

std::size_t resumable_rows(const std::string& path, const std::string& expected_state, std::size_t expected_rows,
                           bool intervals) {
  const std::string state_path = path + ".sweep-state";
  std::ifstream state(state_path);
  if (!state) throw InputError(path + ": no interrupted sweep to resume (" + state_path + " is missing)");
  std::stringstream ss;
  ss << state.rdbuf();
  if (ss.str() != expected_state)
    throw InputError(state_path + ": the file was written by a different sweep (scenario, values, lists, the files "
                     "they name, the shard or the ddlsim version changed); run without --resume to start over");
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

namespace {

struct ShardFile {
  std::string path;
  Shard shard;
  std::unique_ptr<std::ifstream> in;
};

std::string shard_name(const Shard& s, const std::string& path) {
  return "shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + " (" + path + ")";
}

// The shard FILE is, checked against the sweep: its record, then its header and its rows.
ShardFile open_shard(const SweepIdentity& sweep, const std::string& path, std::string& header) {
  const std::string record_path = path + ".shard";
  std::error_code ec;
  if (!std::filesystem::exists(record_path, ec)) {
    const bool running = std::filesystem::exists(path + ".sweep-state", ec);
    throw InputError(path + ": not a finished shard (" + record_path + " is missing" +
                     (running ? "; its .sweep-state says it is unfinished: finish it with --shard I/N --resume" : "") +
                     ")");
  }
  const std::string record = read_text_file(record_path, "shard record (ddlsim sweep --shard)");
  ShardFile f{path, {}, nullptr};
  unsigned long long i = 0, n = 0;
  if (std::sscanf(field(record, "shard").c_str(), "%llu/%llu", &i, &n) != 2 || n < 1 || i >= n)
    throw InputError(record_path + ": no 'shard I/N' line; not written by ddlsim sweep --shard");
  f.shard = {std::size_t(i), std::size_t(n)};
  SweepIdentity mine = sweep;
  mine.shard = f.shard;
  const std::size_t rows = shard_rows(sweep.configurations, f.shard);
  if (record != shard_record_text(mine, rows)) {
    std::string why = "its rows are another sweep's (scenario, values, lists or the files they name changed)";
    if (field(record, "fingerprint") == sweep.fingerprint && field(record, "configurations") == std::to_string(sweep.configurations))
      why = field(record, "rows") != std::to_string(rows) ? "it holds " + field(record, "rows") + " rows, not " + std::to_string(rows)
                                                          : "another ddlsim version wrote it";
    throw InputError(shard_name(f.shard, path) + ": " + why);
  }
  f.in = std::make_unique<std::ifstream>(path, std::ios::binary);
  std::string head;
  if (!*f.in || !std::getline(*f.in, head)) throw InputError(shard_name(f.shard, path) + ": cannot read its rows");
  head += "\n";
  if (header.empty()) header = head;
  if (head != header || (head != sweep_csv_header(false) && head != sweep_csv_header(true)))
    throw InputError(shard_name(f.shard, path) + ": its header is not the other shards' or not this ddlsim's "
                     "(every shard with --intervals or none)");
  return f;
}

}  // namespace

std::size_t merge_shards(const SweepIdentity& sweep, const std::vector<std::string>& shard_files,
                         const std::string& output) {
  if (shard_files.empty()) throw InputError("ddlsim sweep --merge: expected the shards' CSV files after the scenario");
  std::string header;
  std::vector<ShardFile> shards;
  for (const std::string& path : shard_files) shards.push_back(open_shard(sweep, path, header));
  const std::size_t n = shards.front().shard.count;
  std::vector<int> slot(n, -1);
  for (std::size_t k = 0; k < shards.size(); ++k) {
    const Shard& s = shards[k].shard;
    if (s.count != n)
      throw InputError(shard_name(s, shards[k].path) + ": the sweep was split into " + std::to_string(s.count) +
                       " shards here and " + std::to_string(n) + " in " + shards.front().path);
    if (slot[s.index] >= 0)
      throw InputError(shard_name(s, shards[k].path) + ": given twice (also " + shards[std::size_t(slot[s.index])].path + ")");
    slot[s.index] = int(k);
  }
  std::string missing;
  for (std::size_t s = 0; s < n; ++s)
    if (slot[s] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(s);
  if (!missing.empty())
    throw InputError("ddlsim sweep --merge: shard(s) " + missing + " of " + std::to_string(n) +
                     " missing: no file given is theirs");

  const bool to_stdout = output.empty() || output == "-";
  const std::string tmp = output + ".merge-tmp";
  std::ofstream file;
  if (!to_stdout) {
    file.open(tmp, std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(output + ": cannot open for writing");
  }
  std::ostream& out = to_stdout ? std::cout : file;
  out << header;
  std::size_t failed = 0;
  std::string line;
  for (std::size_t i = 0; i < sweep.configurations; ++i) {
    ShardFile& f = shards[std::size_t(slot[shard_of(i, {0, n})])];
    if (!std::getline(*f.in, line)) {
      if (!to_stdout) std::remove(tmp.c_str());
      throw InputError(shard_name(f.shard, f.path) + ": fewer rows than its record says");
    }
    if (line.empty() || line.back() != ',') ++failed;
    out << line << '\n';
  }
  for (ShardFile& f : shards)
    if (std::getline(*f.in, line)) {
      if (!to_stdout) std::remove(tmp.c_str());
      throw InputError(shard_name(f.shard, f.path) + ": more rows than its record says");
    }
  if (!to_stdout) {
    file.close();
    if (!file || std::rename(tmp.c_str(), output.c_str()) != 0) {
      std::remove(tmp.c_str());
      throw InputError(output + ": cannot write the merged sweep");
    }
  }
  return failed;
}

}  // namespace cli_layer
}  // namespace ddlsim
