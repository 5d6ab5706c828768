#include "spec/comm.hpp"

#include <utility>
#include <vector>

#include "core/parse.hpp"

namespace ddlsim {
inline namespace spec_layer {

Collective parse_collective(const std::string& text, const std::string& key) {
  static const std::vector<std::pair<std::string, Collective>> names = {
      {"allreduce", Collective::Allreduce}, {"reduce_scatter", Collective::ReduceScatter},
      {"reducescatter", Collective::ReduceScatter}, {"allgather", Collective::Allgather},
      {"broadcast", Collective::Broadcast}, {"bcast", Collective::Broadcast},
      {"reduce", Collective::Reduce}, {"alltoall", Collective::Alltoall}};
  return lookup(names, text, key, "collective", "allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall");
}

const char* to_string(Collective c) {
  switch (c) {
    case Collective::Allreduce: return "allreduce";
    case Collective::ReduceScatter: return "reduce_scatter";
    case Collective::Allgather: return "allgather";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::Alltoall: return "alltoall";
  }
  return "?";
}

Algorithm parse_algorithm(const std::string& text, const std::string& key) {
  static const std::vector<std::pair<std::string, Algorithm>> names = {
      {"ring", Algorithm::Ring},
      {"rhd", Algorithm::HalvingDoubling},
      {"halving_doubling", Algorithm::HalvingDoubling},
      {"tree", Algorithm::Tree},
      {"hierarchical", Algorithm::Hierarchical},
      {"ps", Algorithm::ParameterServer},
      {"parameter_server", Algorithm::ParameterServer},
      {"rabenseifner", Algorithm::Rabenseifner},
      {"rd", Algorithm::RecursiveDoubling},
      {"recursive_doubling", Algorithm::RecursiveDoubling},
      {"pairwise", Algorithm::Pairwise},
      {"dbtree", Algorithm::DoubleBinaryTree},
      {"double_binary_tree", Algorithm::DoubleBinaryTree},
      {"nccl_tree", Algorithm::DoubleBinaryTree},
      {"nvls", Algorithm::Nvls},
      {"nvlink_sharp", Algorithm::Nvls},
      {"nvls_tree", Algorithm::NvlsTree},
      {"nvlstree", Algorithm::NvlsTree},
      {"collnet", Algorithm::CollnetDirect},
      {"collnet_direct", Algorithm::CollnetDirect},
      {"collnetdirect", Algorithm::CollnetDirect},
      {"auto", Algorithm::Auto}};
  return lookup(names, text, key, "", "ring, rhd, tree, dbtree, nvls, nvls_tree, collnet, hierarchical, ps, rabenseifner, rd, pairwise, auto");
}

Protocol parse_protocol(const std::string& text, const std::string& key) {
  static const std::vector<std::pair<std::string, Protocol>> names = {
      {"auto", Protocol::Auto}, {"ll", Protocol::LL}, {"ll128", Protocol::LL128}, {"simple", Protocol::Simple}};
  return lookup(names, text, key, "", "auto, ll, ll128 or simple");
}

const char* to_string(Protocol p) {
  switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
    case Protocol::Auto: return "auto";
  }
  return "?";
}

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Ring: return "ring";
    case Algorithm::HalvingDoubling: return "rhd";
    case Algorithm::Tree: return "tree";
    case Algorithm::Hierarchical: return "hierarchical";
    case Algorithm::ParameterServer: return "ps";
    case Algorithm::Rabenseifner: return "rabenseifner";
    case Algorithm::RecursiveDoubling: return "rd";
    case Algorithm::Pairwise: return "pairwise";
    case Algorithm::DoubleBinaryTree: return "dbtree";
    case Algorithm::Nvls: return "nvls";
    case Algorithm::NvlsTree: return "nvls_tree";
    case Algorithm::CollnetDirect: return "collnet";
    case Algorithm::Auto: return "auto";
  }
  return "?";
}

Library parse_library(const std::string& text, const std::string& key) {
  static const std::vector<std::pair<std::string, Library>> names = {
      {"nccl", Library::Nccl}, {"mpi", Library::Mpi}, {"openmpi", Library::Mpi},
      {"gloo", Library::Gloo}, {"gpi2", Library::Gpi2},  {"grpc", Library::Grpc}};
  return lookup(names, text, key, "communication library", "nccl, mpi, gloo, gpi2, grpc");
}

const char* to_string(Library l) {
  switch (l) {
    case Library::Nccl: return "nccl";
    case Library::Mpi: return "mpi";
    case Library::Gloo: return "gloo";
    case Library::Gpi2: return "gpi2";
    case Library::Grpc: return "grpc";
  }
  return "?";
}

}  // namespace spec_layer
}  // namespace ddlsim
