// Sweeps split into shards (sweep/shard.hpp) and joined again (`sweep --merge`): every
// configuration in exactly one shard, the shards balanced, and the merged file byte for byte the
// file one run writes; a missing, unfinished, repeated or foreign shard is named by its index.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "scenario/resolve.hpp"
#include "sweep/shard.hpp"
#include "sweep/sweep.hpp"
#include "test_util.hpp"

using ddlsim::Shard;
using testutil::run_ddlsim;
using testutil::TempFile;

TEST(SweepShard, EveryConfigurationInExactlyOneShardInOrder) {
  for (std::size_t size : {0u, 1u, 7u, 36u, 100u, 1001u})
    for (std::size_t n : {1u, 2u, 3u, 5u, 8u, 64u, 2000u}) {
      std::vector<int> seen(size, 0);
      std::size_t least = size, most = 0;
      for (std::size_t s = 0; s < n; ++s) {
        const Shard sh{s, n};
        const std::size_t rows = ddlsim::shard_rows(size, sh);
        least = std::min(least, rows), most = std::max(most, rows);
        for (std::size_t k = 0; k < rows; ++k) {
          const std::size_t i = ddlsim::shard_config(k, sh);
          ASSERT_LT(i, size) << size << " " << n;
          EXPECT_EQ(ddlsim::shard_of(i, sh), s);
          if (k > 0) EXPECT_GT(i, ddlsim::shard_config(k - 1, sh));  // the sweep's order
          ++seen[i];
        }
      }
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; })) << size << " " << n;
      if (size > 0) EXPECT_LE(most - least, 1u) << size << " " << n;
    }
}

// 4 node counts varying fastest, 8 shards: i mod 8 would give shard 3 and 7 only the largest
// count. Turned, each shard runs each node count equally often.
TEST(SweepShard, AFastKeyWhoseLengthDividesTheShardsIsSpread) {
  const std::size_t models = 16, nodes = 4, n = 8;
  for (std::size_t s = 0; s < n; ++s) {
    std::map<std::size_t, int> per_node;
    for (std::size_t k = 0; k < ddlsim::shard_rows(models * nodes, {s, n}); ++k)
      ++per_node[ddlsim::shard_config(k, {s, n}) % nodes];
    ASSERT_EQ(per_node.size(), nodes) << "shard " << s;
    for (const auto& [node, count] : per_node) EXPECT_EQ(count, 2) << "shard " << s << " node index " << node;
  }
}

namespace {

const char* kSweep =
    "[model]\nname = resnet50\ninput_size = 64\nclasses = 200\n[cluster]\nplatform = poti\n[sweep]\n"
    "cluster.nodes = 1, 2, 3, 4\ntraining.batch_per_gpu = 8, 16, 32\ncomm.bucket_mb = 1, 25\n";

std::string shard_files(const TempFile& dir, int n) {
  std::string out;
  for (int s = 0; s < n; ++s) out += " " + dir.dir() + "/part" + std::to_string(s) + ".csv";
  return out;
}

}  // namespace

TEST(SweepShard, MergedShardsAreTheOneRunsFileByteForByte) {
  TempFile ini("s.ini", kSweep);
  TempFile whole("whole.csv");
  ASSERT_EQ(run_ddlsim("sweep " + ini.path() + " --jobs 2 --output " + whole.path()).code, 0);
  for (int n : {1, 5, 24, 30}) {
    TempFile dir("merged.csv");
    for (int s = 0; s < n; ++s) {
      const auto r = run_ddlsim("sweep " + ini.path() + " --jobs 1 --shard " + std::to_string(s) + "/" + std::to_string(n) +
                                " --output " + dir.dir() + "/part" + std::to_string(s) + ".csv");
      ASSERT_EQ(r.code, 0) << r.out;
    }
    const auto r = run_ddlsim("sweep " + ini.path() + " --merge" + shard_files(dir, n) + " --output " + dir.path());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(testutil::slurp(dir.path()), testutil::slurp(whole.path())) << n << " shards";
  }
}

TEST(SweepShard, SlurmArrayTaskPicksItsShard) {
  TempFile ini("s.ini", kSweep);
  TempFile a("a.csv"), b("b.csv");
  ASSERT_EQ(run_ddlsim("sweep " + ini.path() + " --shard 2/4 --output " + a.path()).code, 0);
  const auto r = testutil::run_shell("SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=4 " +
                                     std::string(DDLSIM_BINARY) + " sweep " + ini.path() + " --shard auto --output " + b.path());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(testutil::slurp(a.path()), testutil::slurp(b.path()));
  EXPECT_EQ(testutil::slurp(a.path() + ".shard"), testutil::slurp(b.path() + ".shard"));
  const auto outside = run_ddlsim("sweep " + ini.path() + " --shard auto --output " + b.path());
  EXPECT_EQ(outside.code, 2);
  EXPECT_NE(outside.out.find("not a Slurm array task"), std::string::npos) << outside.out;
}

TEST(SweepShard, MergeNamesTheShardThatIsMissingUnfinishedRepeatedOrAnotherSweeps) {
  TempFile ini("s.ini", kSweep);
  TempFile dir("all.csv");
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(run_ddlsim("sweep " + ini.path() + " --shard " + std::to_string(s) + "/3 --output " + dir.dir() + "/part" +
                         std::to_string(s) + ".csv")
                  .code,
              0);
  const std::string p0 = dir.dir() + "/part0.csv", p1 = dir.dir() + "/part1.csv", p2 = dir.dir() + "/part2.csv";
  const auto merge = [&](const std::string& files, const std::string& more = "") {
    return run_ddlsim("sweep " + ini.path() + " --merge " + files + " --output " + dir.path() + more);
  };
  auto r = merge(p0 + " " + p2);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("shard(s) 1 of 3 missing"), std::string::npos) << r.out;
  r = merge(p0 + " " + p1 + " " + p1 + " " + p2);
  EXPECT_NE(r.out.find("shard 1/3 (" + p1 + "): given twice"), std::string::npos) << r.out;
  r = merge(p0 + " " + p1 + " " + p2, " --cluster.platform=tupi");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("another sweep's"), std::string::npos) << r.out;
  // Unfinished: its record not yet written, its state file there and half its rows: the merge
  // refuses it and writes nothing; the shard's --resume finishes it, and the merge is whole.
  const std::string rows = testutil::slurp(p1);
  std::string state = testutil::slurp(p1 + ".shard");
  state.replace(0, state.find('\n'), "ddlsim sweep state 1");
  const std::size_t at = state.find("rows ");
  state.erase(at, state.find('\n', at) + 1 - at);
  std::remove((p1 + ".shard").c_str());
  std::ofstream(p1 + ".sweep-state") << state;
  std::ofstream(p1) << rows.substr(0, rows.find('\n', rows.size() / 2) + 1);
  r = merge(p0 + " " + p1 + " " + p2);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("not a finished shard"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--resume"), std::string::npos) << r.out;
  EXPECT_FALSE(testutil::exists(dir.path())) << "nothing written";
  r = run_ddlsim("sweep " + ini.path() + " --shard 1/3 --resume --output " + p1);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(testutil::slurp(p1), rows);
  EXPECT_EQ(merge(p0 + " " + p1 + " " + p2).code, 0);
}
