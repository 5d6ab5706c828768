// The files of `ddlsim sweep --output FILE.csv`: the state that marks an unfinished sweep (and lets
// --resume finish it), the record a finished shard leaves beside its rows, and the merge of a
// sweep's shards into the file one run would have written.
//   FILE.csv.sweep-state  while rows are missing: "ddlsim sweep state 1", the fingerprint, the
//                         number of configurations, the shard ("shard I/N", with --shard), the
//                         version; removed when the last row is written.
//   FILE.csv.shard        a finished shard: the same lines with "ddlsim sweep shard 1" and its rows.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep.hpp"

namespace ddlsim {
inline namespace cli_layer {

// What identifies a sweep's rows: its fingerprint and size (of the whole sweep), the shard, and
// the ddlsim that computed them (another version may give other numbers).
struct SweepIdentity {
  std::string fingerprint;
  std::size_t configurations = 0;
  std::optional<Shard> shard;  // none: the whole sweep in one run
};

std::string state_text(const SweepIdentity& id);
// The record of a finished shard of `rows` rows.
std::string shard_record_text(const SweepIdentity& id, std::size_t rows);

// --resume: the rows FILE already holds (a partly written last line is cut off); throws InputError
// when FILE's state is not this sweep's, or its header or row count cannot be.
std::size_t resumable_rows(const std::string& path, const std::string& expected_state, std::size_t expected_rows,
                           bool intervals);

// `ddlsim sweep FILE --merge SHARD.csv...`: checks that the shards are this sweep's (fingerprint,
// size, version), that each of 0..N-1 is there once and finished with all its rows and the same
// header, then writes the rows in the sweep's order to `output` (a file replaced at the end, or
// stdout for "" or "-"). Returns the rows whose error column is set. Throws InputError naming the
// shard (by index and file) that is missing, unfinished or another sweep's.
std::size_t merge_shards(const SweepIdentity& sweep, const std::vector<std::string>& shard_files,
                         const std::string& output);

}  // namespace cli_layer
}  // namespace ddlsim
