#include "system/system.hpp"

#include <algorithm>
#include <map>

namespace ddlsim {
inline namespace system_layer {

namespace {

// The loaders' time an image besides decoding, at 224 x 224 (default_decode_s).
Seconds rest_at_224_s(FrameworkMode mode) { return mode == FrameworkMode::Eager ? 1.143e-3 : 0.382e-3; }

}  // namespace

Seconds default_decode_s(FrameworkMode mode, int input_h, int input_w, StoredImage stored) {
  const Seconds imagenet_jpeg_s = mode == FrameworkMode::Eager ? 0.976e-3 : 0.872e-3;
  if (stored == StoredImage::Auto)
    stored = input_h >= 64 && input_w >= 64 ? StoredImage::ImagenetJpeg : StoredImage::Raw;
  const Seconds jpeg_s = stored == StoredImage::ImagenetJpeg ? imagenet_jpeg_s
                         : stored == StoredImage::TinyJpeg   ? imagenet_jpeg_s * 0.147 / 1.859
                                                             : 0;
  return jpeg_s + rest_at_224_s(mode) * double(input_h) * input_w / (224.0 * 224.0);
}

double augment_ratio(Augment a) {
  switch (a) {  // calibration/measured/augment-cost.csv: each policy's ms over the standard's 1.888
    case Augment::Standard: return 0;
    case Augment::AutoAugment: return 0.676 / 1.888;
    case Augment::RandAugment: return 1.103 / 1.888;
    case Augment::TrivialAugment: return 0.564 / 1.888;
    case Augment::AugMix: return 10.022 / 1.888;
  }
  return 0;
}

Seconds augment_s(Augment a, FrameworkMode mode, int input_h, int input_w) {
  return augment_ratio(a) * rest_at_224_s(mode) * double(input_h) * input_w / (224.0 * 224.0);
}

namespace {

// The kind of each rank from a key per rank: kinds in order of first appearance.
template <class Key, class MakeKind>
RankKinds kinds_by_key(const std::vector<Key>& keys, MakeKind make) {
  RankKinds out;
  std::map<Key, int> index;
  for (const Key& k : keys) {
    const auto [it, fresh] = index.emplace(k, int(out.kinds.size()));
    if (fresh) out.kinds.push_back(make(k));
    out.of_rank.push_back(it->second);
  }
  if (out.kinds.size() <= 1) out.of_rank.clear();
  return out;
}

RankKinds group_kinds(const System& sys) {
  std::vector<std::string> device_of_rank;
  for (const NodeGroup& g : sys.groups)
    device_of_rank.insert(device_of_rank.end(), std::size_t(g.nodes) * sys.cluster.gpus_per_node, g.device.name);
  return kinds_by_key(device_of_rank, [&](const std::string& name) {
    const auto g = std::find_if(sys.groups.begin(), sys.groups.end(), [&](const NodeGroup& x) { return x.device.name == name; });
    return RankKind{g->device, 1};
  });
}

// A platform file's rank hosts' speeds; a host the file lacks counts as the fastest (the SimGrid
// backend refuses such a placement; the analytic one never needed the host).
RankKinds speed_kinds(const System& sys) {
  const auto& speeds = sys.cluster.node_host_speeds;
  std::vector<double> of_rank;
  for (int n = 0; n < sys.nodes; ++n)
    for (int k = 0; k < sys.cluster.gpus_per_node; ++k)
      of_rank.push_back(std::size_t(n) < speeds.size() && std::size_t(k) < speeds[n].size() ? speeds[n][k] : 0);
  double fastest = 0;
  for (double s : of_rank) fastest = std::max(fastest, s);
  for (double& s : of_rank) s = s > 0 ? s : fastest;
  return kinds_by_key(of_rank, [&](double s) { return RankKind{sys.device, s == fastest ? 1 : fastest / s}; });
}

}  // namespace

RankKinds rank_kinds(const System& sys) {
  if (!sys.groups.empty()) return group_kinds(sys);
  if (!sys.cluster.node_host_speeds.empty()) return speed_kinds(sys);
  return {{RankKind{sys.device, 1}}, {}};
}

CommTopology comm_topology(const System& sys, int nodes, int gpus_per_node, int ps_servers) {
  CommTopology t;
  t.nodes = nodes;
  t.gpus_per_node = gpus_per_node;
  t.intra = sys.cluster.intra_route();
  t.inter = sys.cluster.inter_route();
  t.rail = sys.cluster.rail_route();
  t.ps_servers = ps_servers;
  t.switch_reduction = sys.cluster.switch_reduction();
  t.network_reduction = sys.cluster.network_reduction && sys.cluster.nvswitch();
  t.intra_nvlink = sys.cluster.intra_nvlink();
  t.net_plugin_latency_s = sys.cluster.nccl_net_latency_s;
  t.net_ll = sys.cluster.nccl_net_ll;
  // use_library_factors sets the floors only for NCCL with its own latencies and no measured overhead.
  t.nccl_protocols = sys.cluster.intra_round_floor_s > 0 || sys.cluster.inter_round_floor_s > 0;
  return t;
}

}  // namespace system_layer
}  // namespace ddlsim
