#include "system/platform.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace ddlsim {

namespace {
constexpr double us = 1e-6;

template <class T>
const T& find_by_name(const std::vector<T>& items, const std::string& name, const std::string& key,
                      const char* what) {
  const std::string n = to_lower(name);
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.name == n; });
  if (it == items.end()) throw_unknown(key, name, what, names_of(items, [](const T& x) { return x.name; }));
  return *it;
}
}  // namespace

// Effective one-direction bandwidths: what a bulk transfer achieves (TCP goodput on Ethernet,
// NCCL bus bandwidth for NVLink), and one-hop latencies including the software stack's share.
const std::vector<LinkKind>& link_kinds() {
  static const std::vector<LinkKind> kinds = {
      {"1gbe", 117.5e6, 25 * us, "1 Gb/s Ethernet, TCP goodput 940 Mb/s"},
      {"10gbe", 1.175e9, 10 * us, "10 Gb/s Ethernet, TCP goodput 9.4 Gb/s"},
      {"25gbe", 2.9e9, 5 * us, "25 Gb/s Ethernet, 23 Gb/s achieved"},
      {"100gbe", 11.5e9, 3 * us, "100 Gb/s Ethernet (RoCE)"},
      {"ib-fdr", 6.0e9, 1 * us, "InfiniBand FDR 56 Gb/s"},
      {"ib-edr", 12.0e9, 1 * us, "InfiniBand EDR 100 Gb/s"},
      {"pcie3", 12.0e9, 2 * us, "PCIe 3.0 x16, about 12 GB/s achieved"},
      {"pcie4", 24.0e9, 2 * us, "PCIe 4.0 x16, about 24 GB/s achieved"},
      {"nvlink1", 36.0e9, 1 * us, "NVLink 1 (P100 DGX-1), ring bus bandwidth"},
      {"nvlink2", 130.0e9, 1 * us, "NVLink 2 (V100 DGX-1/DGX-2), NCCL bus bandwidth"},
      {"nvlink3", 230.0e9, 1 * us, "NVLink 3 (A100), NCCL bus bandwidth"},
  };
  return kinds;
}

namespace {
bool is_intra_kind(const LinkKind& k) { return k.name.rfind("pcie", 0) == 0 || k.name.rfind("nvlink", 0) == 0; }
}  // namespace

const LinkKind& find_link_kind(const std::string& name, const std::string& key, LinkPlace place) {
  std::vector<LinkKind> kinds;
  for (const auto& k : link_kinds())
    if (is_intra_kind(k) == (place == LinkPlace::Intra)) kinds.push_back(k);
  const char* what = place == LinkPlace::Intra ? "intra-node link kind" : "inter-node link kind";
  const LinkKind& k = find_by_name(kinds, name, key, what);
  return *std::find_if(link_kinds().begin(), link_kinds().end(), [&](const LinkKind& x) { return x.name == k.name; });
}

Route ClusterDescription::intra_route() const {
  return {2 * intra.latency_s, intra.bw_Bps, intra.exchange_factor, intra.duplex_factor};
}

Route ClusterDescription::inter_route() const {
  return {2 * intra.latency_s + 2 * inter.latency_s, std::min(intra.bw_Bps, inter.bw_Bps),
          std::min(intra.exchange_factor, inter.exchange_factor), std::min(intra.duplex_factor, inter.duplex_factor)};
}

namespace {
const LinkKind& intra_kind(const char* name) { return find_link_kind(name, "", LinkPlace::Intra); }
const LinkKind& inter_kind(const char* name) { return find_link_kind(name, "", LinkPlace::Inter); }
}  // namespace

const std::vector<ClusterDescription>& builtin_clusters() {
  static const std::vector<ClusterDescription> clusters = {
      {"tupi", "rtx4090", 6, 1, intra_kind("pcie4"), inter_kind("1gbe"),
       "UFRGS PCAD Tupi: nodes with one RTX 4090 (i9-14900KF), commodity 1 GbE to one switch; "
       "node count assumed", ""},
      {"poti", "rtx4070", 6, 1, intra_kind("pcie4"), inter_kind("1gbe"),
       "UFRGS PCAD Poti: nodes with one RTX 4070 (i7-14700KF), commodity 1 GbE to one switch; "
       "node count assumed", ""},
      {"dgx1", "v100", 0, 8, intra_kind("nvlink2"), inter_kind("ib-edr"),
       "DGX-1 V100: 8 GPUs joined by NVLink 2, one EDR InfiniBand port per node modelled", ""},
      {"dgx1-p100", "p100", 0, 8, intra_kind("nvlink1"), inter_kind("ib-edr"),
       "DGX-1 P100: 8 GPUs joined by NVLink 1", ""},
      {"k80-pcie", "k80", 0, 8, intra_kind("pcie3"), inter_kind("10gbe"),
       "Cloud servers with 4 K80 boards (8 dies) on PCIe 3, 10 GbE between servers", ""},
      {"cluster4x25g", "v100", 0, 4, intra_kind("pcie3"), inter_kind("25gbe"),
       "Nodes with 4 V100 PCIe GPUs, 25 GbE to one switch", ""},
  };
  return clusters;
}

const ClusterDescription& find_cluster(const std::string& name, const std::string& key) {
  return find_by_name(builtin_clusters(), name, key, "platform");
}

}  // namespace ddlsim
