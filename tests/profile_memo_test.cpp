// Compute profiles kept across predictions (predict/prediction.hpp ProfileMemo): every key called
// neutral leaves the profiles as they are, and a prediction through the memo is the prediction.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "predict/prediction.hpp"
#include "scenario/resolve.hpp"
#include "scenario/settings.hpp"

using namespace ddlsim;

namespace {

// A value unlike the default for every neutral key: each is resolved and its profiles compared.
const std::map<std::string, std::string>& other_values() {
  static const std::map<std::string, std::string> v = {
      {"cluster.nodes", "3"}, {"cluster.inter", "ib-hdr"}, {"cluster.inter_bw_GBps", "7"},
      {"cluster.inter_latency_us", "9"}, {"cluster.intra_bw_GBps", "50"}, {"cluster.intra_latency_us", "2"},
      {"cluster.nics", "2"}, {"cluster.network_reduction", "none"}, {"cluster.nccl_net_latency_us", "20"},
      {"cluster.net_eager_kib", "32"}, {"cluster.net_rendezvous_us", "20"},
      {"cluster.nccl_net_protocols", "simple"}, {"cluster.socket_nic", "aws-ena"}, {"cluster.tcp_flow_GBps", "1"},
      {"cluster.tcp_thread_GBps", "3"}, {"training.sync_period", "4"}, {"training.samples", "50000"},
      {"training.epochs", "3"}, {"training.drop_last", "true"}, {"comm.library", "mpi"}, {"comm.algorithm", "rhd"},
      {"comm.bucket_mb", "7"}, {"comm.first_bucket_mb", "2"}, {"comm.overlap", "false"},
      {"comm.interference", "0.2"}, {"comm.nccl_socket_threads", "2"}, {"comm.nccl_socks_per_thread", "2"},
      {"comm.per_call_us", "30"}, {"comm.time_p10", "0.9"}, {"comm.time_p90", "1.3"},
      {"comm.host_exchange_GBps", "3"}, {"comm.host_staging", "on"}, {"comm.gradient_dtype", "fp16"},
      {"comm.cycle_time_ms", "5"}, {"comm.ps_servers", "2"}, {"comm.nccl_protocol", "simple"},
      {"comm.prefetch", "none"}, {"comm.ring_steps", "lockstep"}, {"comm.eager_limit_kib", "64"},
      {"comm.round_latency", "network"}, {"input.storage", "nfs"}, {"input.format", "files"},
      {"input.loader_workers", "2"}, {"input.decoder", "dali"}, {"input.storage_GBps", "0.5"},
      {"input.cpu_cores", "8"}, {"input.sample_kb", "20"}, {"input.augment", "randaugment"},
      {"input.decode_ms", "3"}, {"simulation.backend", "simgrid"}, {"simulation.fidelity", "full"},
      {"simulation.timeout_s", "30"}, {"network.model", "lv08"}, {"network.crosstraffic", "true"},
      {"network.tcp_gamma", "65536"}, {"network.latency_factor", "2"}, {"network.bandwidth_factor", "0.5"}};
  return v;
}

// What a test value needs beside it to resolve.
const std::map<std::string, std::pair<std::string, std::string>>& companions() {
  static const std::map<std::string, std::pair<std::string, std::string>> c = {
      {"comm.eager_limit_kib", {"comm.library", "mpi"}}, {"comm.time_p10", {"comm.time_p90", "1.3"}},
      {"comm.time_p90", {"comm.time_p10", "0.9"}}};
  return c;
}

bool same_profiles(const ComputeProfiles& a, const ComputeProfiles& b) {
  if (a.by_kind.size() != b.by_kind.size() || a.walks.size() != b.walks.size()) return false;
  // The walks' buckets follow the fusion keys (neutral: build_schedule makes its own where they
  // differ); their sums, and the model's, are the profiles'.
  for (std::size_t k = 0; k < a.walks.size(); ++k)
    if (a.walks[k].passes.forward_s != b.walks[k].passes.forward_s ||
        a.walks[k].passes.backward_s != b.walks[k].passes.backward_s)
      return false;
  if (a.model_memory.params.total != b.model_memory.params.total ||
      a.model_memory.params.trainable != b.model_memory.params.trainable ||
      a.model_memory.saved_per_sample != b.model_memory.saved_per_sample)
    return false;
  for (std::size_t k = 0; k < a.by_kind.size(); ++k) {
    const ComputeProfile &p = a.by_kind[k], &q = b.by_kind[k];
    if (p.layers.size() != q.layers.size() || p.optimizer_s != q.optimizer_s || p.accumulate_s != q.accumulate_s ||
        p.step_overhead_s != q.step_overhead_s || p.optimizer_kernels != q.optimizer_kernels ||
        p.optimizer_host_s != q.optimizer_host_s || p.scale != q.scale)
      return false;
    for (std::size_t i = 0; i < p.layers.size(); ++i)
      if (p.layers[i].fwd_s != q.layers[i].fwd_s || p.layers[i].bwd_s != q.layers[i].bwd_s ||
          p.layers[i].fwd_kernels != q.layers[i].fwd_kernels || p.layers[i].bwd_kernels != q.layers[i].bwd_kernels ||
          p.layers[i].grad_elems != q.layers[i].grad_elems)
        return false;
  }
  return true;
}

}  // namespace

// Every key the memo treats as neutral has a test value here (a new neutral key needs one), and
// changing it alone leaves the profiles exactly as they were, on a GPU cluster and on a language model.
TEST(ProfileMemo, NeutralKeysLeaveTheProfilesAlone) {
  std::map<std::string, int> checked;  // neutral key -> bases on which its value resolved
  for (const std::vector<std::string>& base_args :
       {std::vector<std::string>{"--cluster.platform=dgx1", "--cluster.nodes=2"},
        std::vector<std::string>{"--cluster.platform=dgx-h100", "--cluster.nodes=2", "--model.name=bert_base",
                                 "--model.precision=mixed", "--training.batch_per_gpu=16"}}) {
    const Settings base = read_scenario("", base_args).settings;
    const ComputeProfiles expected = compute_profiles(resolve_scenario(base, "."));
    for (const auto& [key, setting] : base) {
      if (!profile_neutral_key(key)) continue;
      const auto v = other_values().find(key);
      ASSERT_NE(v, other_values().end()) << key << " is neutral but has no test value";
      Settings s = base;
      s[key] = Setting{v->second, "command line", false};
      // Keys that need another to be valid get it (itself neutral).
      const auto with = companions().find(key);
      if (with != companions().end()) s[with->second.first] = Setting{with->second.second, "command line", false};
      Scenario sc;
      try {
        sc = resolve_scenario(s, ".");
      } catch (const InputError&) {
        continue;  // not a value this base takes (an image augmentation on a language model)
      }
      EXPECT_TRUE(same_profiles(compute_profiles(sc), expected)) << key << " = " << v->second;
      ++checked[key];
    }
  }
  for (const auto& [key, value] : other_values()) {
    EXPECT_TRUE(profile_neutral_key(key)) << key;
    EXPECT_GE(checked[key], 1) << key << " = " << value << " resolved on no base scenario";
  }
}

// Keys the profiles read are not neutral, and a mixed cluster named in cluster.nodes is not a count.
TEST(ProfileMemo, TheProfilesOwnKeysAreNot) {
  for (const char* key : {"model.name", "model.precision", "training.batch_per_gpu", "compute.efficiency",
                          "framework.mode", "cluster.platform", "compute.device", "input.dataset", "training.optimizer",
                          "training.recompute", "framework.cuda_graphs"})
    EXPECT_FALSE(profile_neutral_key(key)) << key;
}

// Through the memo, a run of predictions equals predicting each alone, whatever changes between them
// (the profiles' walks made for other bucket sizes or gradient precision included).
TEST(ProfileMemo, PredictionsThroughTheMemoAreThePredictions) {
  ProfileMemo memo;
  const std::vector<std::vector<std::string>> runs = {
      {"--cluster.nodes=2"},
      {"--cluster.nodes=4", "--comm.bucket_mb=5"},
      {"--cluster.nodes=4", "--comm.bucket_mb=5", "--comm.first_bucket_mb=1"},
      {"--cluster.nodes=4", "--comm.bucket_mb=5", "--comm.gradient_dtype=fp16"},
      {"--cluster.nodes=1", "--comm.bucket_mb=2"},
      {"--cluster.nodes=4", "--training.batch_per_gpu=64"},  // the profiles' own key: computed again
      {"--cluster.nodes=1", "--model.name=vgg16"},
      {"--cluster.nodes=tupi:2, poti:1"},  // a mixed cluster: other devices
      {"--cluster.nodes=3", "--cluster.platform=poti"},
      {"--cluster.nodes=3", "--input.dataset=cifar10"},
  };
  for (const auto& args : runs) {
    const Settings s = read_scenario("", args).settings;
    const Scenario sc = resolve_scenario(s, ".");
    const Prediction kept = predict(sc, memo.profiles(sc, s)), alone = predict(sc);
    EXPECT_EQ(kept.step_time_s, alone.step_time_s) << args.front();
    EXPECT_EQ(kept.comm_time_s, alone.comm_time_s) << args.front();
    EXPECT_EQ(kept.buckets, alone.buckets) << args.front();
    EXPECT_EQ(kept.algorithm_run, alone.algorithm_run) << args.front();
    EXPECT_EQ(kept.memory_per_gpu_bytes, alone.memory_per_gpu_bytes) << args.front();
  }
}
