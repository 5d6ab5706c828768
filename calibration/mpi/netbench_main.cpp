// ddlsim_netbench: the MPI half of `ddlsim netbench` (started through mpirun, one rank per host
// or namespace). Measures, over message sizes:
//   pingpong   ranks 0 and 1, half a round trip (osu_latency)
//   bw         rank 0 -> rank 1, a window of non-blocking sends (osu_bw)
//   bibw       ranks 0 <-> 1 both ways at once (osu_bibw); bandwidth counts both directions
//   exchange   ranks 0 and 1 swap n bytes with MPI_Sendrecv (a 2-rank ring step, an rhd step)
//   shift      p >= 3: every rank sends n bytes to the next and receives n from the previous (a ring step)
//   ring       ring allreduce over all ranks with point-to-point sendrecv, 2 (p-1) steps of n/p
//              bytes: the algorithm ddlsim's `ring` formula describes
//   allreduce  MPI_Allreduce (the MPI library's own choice of algorithm)
//   nccl       ncclAllReduce on one GPU per rank (only in ddlsim_netbench_nccl, built with CUDA
//              and NCCL; GPU = local rank modulo the visible GPUs)
// Rank 0 prints an nccl-tests-style table and writes CSV
// (test,ranks,bytes,time_s,algbw_Bps,busbw_Bps,min_s,p10_s,p50_s,p90_s,reps).
// pingpong: --reps round trips per size (fewer for large messages: reps_for), each timed on its own
// by rank 0 after warm-ups; time_s is the median half round trip, the other columns its spread.
// Other tests: times are the slowest rank's; time_s is the fastest of --iters repetitions after one
// warm-up, the spread columns those repetitions' percentiles.
#include <mpi.h>

#ifdef DDLSIM_WITH_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::vector<long> sizes = {1 << 10, 1 << 16, 1 << 20, 1 << 22};
  std::vector<long> lat_sizes = {8, 1 << 10, 1 << 14};
  int iters = 3;
  int reps = 1000;  // ping-pong round trips per size (reps_for)
  int window = 4;
  std::string tests = "pingpong,bw,bibw,exchange,shift,ring,allreduce";
  std::string csv;
};

// The same rules as `ddlsim netbench` (sim/cli/netbench_cmd.cpp), which checks them before it
// starts the launcher: an error here means this program was started by hand.
constexpr long kMaxBytes = 1L << 30;
constexpr long kMaxBufferBytes = 4L << 30;

struct BadOption {
  std::string what;
};

// "64K" -> 65536: a positive integer with an optional K, M or G suffix, at most 1G; 0 when bad.
long byte_size(const std::string& item) {
  std::size_t digits = 0;
  while (digits < item.size() && std::isdigit((unsigned char)item[digits])) ++digits;
  if (digits == 0 || digits > 10 || item.size() - digits > 1) return 0;
  const char u = digits < item.size() ? char(std::tolower((unsigned char)item[digits])) : '\0';
  const int shift = u == '\0' ? 0 : u == 'k' ? 10 : u == 'm' ? 20 : u == 'g' ? 30 : -1;
  const long v = std::stol(item.substr(0, digits));
  if (shift < 0 || v > (kMaxBytes >> shift)) return 0;
  return v << shift;
}

std::vector<long> parse_sizes(const std::string& key, const std::string& text) {
  std::vector<long> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const long v = byte_size(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (v == 0)
      throw BadOption{key + " '" + text + "': expected sizes in bytes from 1 to 1G (K, M, G suffixes), comma-separated"};
    out.push_back(v);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

int parse_count(const std::string& key, const std::string& text, int hi) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 1 || v > hi)
    throw BadOption{key + " '" + text + "': expected an integer from 1 to " + std::to_string(hi)};
  return int(v);
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc % 2 == 0) throw BadOption{std::string("option '") + argv[argc - 1] + "' has no value"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--sizes") o.sizes = parse_sizes(k, v);
    else if (k == "--lat-sizes") o.lat_sizes = parse_sizes(k, v);
    else if (k == "--iters") o.iters = parse_count(k, v, 10000);
    else if (k == "--window") o.window = parse_count(k, v, 1024);
    else if (k == "--reps") o.reps = parse_count(k, v, 1000000);
    else if (k == "--tests") o.tests = v;
    else if (k == "--csv") o.csv = v;
    else
      throw BadOption{"unknown option '" + k + "' (expected --sizes, --lat-sizes, --iters, --reps, --window, --tests, --csv)"};
  }
  long max_n = 0;
  for (long n : o.sizes) max_n = std::max(max_n, n);
  for (long n : o.lat_sizes) max_n = std::max(max_n, n);
  if (max_n * o.window > kMaxBufferBytes) throw BadOption{"--window x the largest size: expected at most 4G"};
  return o;
}

// The repetitions of one test and size: fastest, 10th, 50th (upper median) and 90th percentile.
struct Spread {
  double min = 0, p10 = 0, p50 = 0, p90 = 0;
  int reps = 0;
};

Spread spread_of(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  const auto at = [&](double q) { return t[std::size_t(q * double(t.size() - 1) + 0.5)]; };
  return {t.front(), at(0.1), at(0.5), at(0.9), int(t.size())};
}

Spread scaled(Spread s, double k) { return {s.min * k, s.p10 * k, s.p50 * k, s.p90 * k, s.reps}; }

struct Row {
  std::string test;
  int ranks;
  long bytes;
  double time_s;
  double algbw, busbw;
  Spread spread;
};

// Slowest rank's time of each of `iters` runs of f after a warm-up.
template <class F>
Spread timed(F f, int iters) {
  f();
  std::vector<double> worst(std::size_t(iters), 0);
  for (int i = 0; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &worst[std::size_t(i)], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  return spread_of(worst);
}

// Ping-pong round trips for an n-byte message: `reps` up to 64 KiB, then fewer in proportion to the
// size (a round trip of 1 MiB takes 16 times as long), at least 20.
int reps_for(long n, int reps) { return int(std::max(std::min<long>(reps, 20), std::min<long>(reps, reps * 65536L / n))); }

void pingpong(int rank, long n, std::vector<char>& a) {
  if (rank == 0) {
    MPI_Send(a.data(), int(n), MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(a.data(), int(n), MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(a.data(), int(n), MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(a.data(), int(n), MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  }
}

// Half round trips of `reps` ping-pongs, each timed on its own by rank 0 (no collective between
// them to disturb the pair), after reps / 10 warm-ups; rank 0 sends the spread to every rank.
Spread pingpong_spread(int rank, long n, int reps, std::vector<char>& a) {
  for (int i = 0; i < std::max(1, reps / 10); ++i) pingpong(rank, n, a);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> half(std::size_t(reps), 0);
  for (int i = 0; i < reps; ++i) {
    const double t0 = MPI_Wtime();
    pingpong(rank, n, a);
    half[std::size_t(i)] = (MPI_Wtime() - t0) / 2;
  }
  Spread s = spread_of(half);
  double v[5] = {s.min, s.p10, s.p50, s.p90, double(s.reps)};
  MPI_Bcast(v, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return {v[0], v[1], v[2], v[3], int(v[4])};
}

// osu_bw / osu_bibw: `window` messages in flight, then a zero-byte acknowledgement.
void window_bw(int rank, long n, int window, bool both, std::vector<char>& a, std::vector<char>& b) {
  if (rank > 1) return;
  const int peer = 1 - rank;
  std::vector<MPI_Request> req;
  const bool sends = both || rank == 0, recvs = both || rank == 1;
  for (int w = 0; w < window; ++w) {
    if (recvs) req.emplace_back(), MPI_Irecv(b.data() + w * n, int(n), MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req.back());
    if (sends) req.emplace_back(), MPI_Isend(a.data() + w * n, int(n), MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req.back());
  }
  MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE);
  if (!both) {
    if (rank == 1) MPI_Send(nullptr, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    else MPI_Recv(nullptr, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

// Ranks 0 and 1 swap n bytes at once (MPI_Sendrecv): one step of a 2-rank ring or of recursive
// halving-doubling.
void exchange(int rank, long n, std::vector<char>& a, std::vector<char>& b) {
  if (rank > 1) return;
  MPI_Sendrecv(a.data(), int(n), MPI_BYTE, 1 - rank, 6, b.data(), int(n), MPI_BYTE, 1 - rank, 6, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

// Every rank sends n bytes to the next and receives n from the previous at once (p >= 3): one
// step of a ring, each NIC sending and receiving with different peers.
void shift(int rank, int p, long n, std::vector<char>& a, std::vector<char>& b) {
  MPI_Sendrecv(a.data(), int(n), MPI_BYTE, (rank + 1) % p, 7, b.data(), int(n), MPI_BYTE, (rank + p - 1) % p, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// Reduce-scatter then allgather around the ring, chunks of n/p bytes (floats).
void ring_allreduce(int rank, int p, long n, std::vector<float>& data, std::vector<float>& tmp) {
  const long elems = n / long(sizeof(float));
  const long chunk = std::max(1L, elems / p);
  const int next = (rank + 1) % p, prev = (rank + p - 1) % p;
  auto at = [&](int c) { return data.data() + long((c % p + p) % p) * chunk; };
  for (int s = 0; s < p - 1; ++s) {
    MPI_Sendrecv(at(rank - s), int(chunk), MPI_FLOAT, next, 4, tmp.data(), int(chunk), MPI_FLOAT, prev, 4,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    float* dst = at(rank - s - 1);
    for (long i = 0; i < chunk; ++i) dst[i] += tmp[i];
  }
  for (int s = 0; s < p - 1; ++s)
    MPI_Sendrecv(at(rank - s + 1), int(chunk), MPI_FLOAT, next, 5, at(rank - s), int(chunk), MPI_FLOAT, prev, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

#ifdef DDLSIM_WITH_NCCL
// One NCCL communicator over all ranks, a device buffer of the largest size.
struct Nccl {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* buf = nullptr;

  static int local_rank() {
    for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"})
      if (const char* s = std::getenv(v)) return std::atoi(s);
    return 0;
  }
  static void check(bool ok, const char* what, const char* why) {
    if (ok) return;
    std::fprintf(stderr, "ddlsim_netbench: %s: %s\n", what, why);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  Nccl(int rank, int p, long max_bytes) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    check(e == cudaSuccess && count > 0, "nccl test", e == cudaSuccess ? "no CUDA device" : cudaGetErrorString(e));
    check(cudaSetDevice(local_rank() % count) == cudaSuccess, "cudaSetDevice", "failed");
    check(cudaStreamCreate(&stream) == cudaSuccess, "cudaStreamCreate", "failed");
    check(cudaMalloc(&buf, std::size_t(max_bytes)) == cudaSuccess, "cudaMalloc", "failed");
    ncclUniqueId id;
    if (rank == 0) ncclGetUniqueId(&id);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    const ncclResult_t r = ncclCommInitRank(&comm, p, id, rank);
    check(r == ncclSuccess, "ncclCommInitRank", ncclGetErrorString(r));
  }
  ~Nccl() {
    ncclCommDestroy(comm);
    cudaFree(buf);
    cudaStreamDestroy(stream);
  }
  void allreduce(long n) {
    ncclAllReduce(buf, buf, std::size_t(n / 4), ncclFloat, ncclSum, comm, stream);
    cudaStreamSynchronize(stream);
  }
};
#endif

bool wants(const Options& o, const char* t) { return ("," + o.tests + ",").find(std::string(",") + t + ",") != std::string::npos; }

}  // namespace

// In the sanitizer build (setup.sh test): Open MPI dlopens its components and closes them again at
// MPI_Finalize, so LeakSanitizer cannot name them and their one-off allocations cannot be suppressed
// by library. This program is MPI glue; leak checking stays on for every other program.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const BadOption& e) {
    if (rank == 0) std::fprintf(stderr, "ddlsim_netbench: error: %s\n", e.what.c_str());
    MPI_Finalize();
    return 2;
  }
  long max_n = 1;
  for (long n : o.sizes) max_n = std::max(max_n, n);
  for (long n : o.lat_sizes) max_n = std::max(max_n, n);
  std::vector<char> a(std::size_t(max_n) * o.window, 1), b(std::size_t(max_n) * o.window, 0);
  std::vector<float> data(std::size_t(max_n / 4 + p), 1.0f), tmp(data.size()), out(data.size());
  std::vector<Row> rows;
  const bool pair = p >= 2;

  if (pair && wants(o, "pingpong"))
    for (long n : o.lat_sizes) {
      const Spread s = pingpong_spread(rank, n, reps_for(n, o.reps), a);
      rows.push_back({"pingpong", 2, n, s.p50, n / s.p50, n / s.p50, s});
    }
  if (pair && wants(o, "bw"))
    for (long n : o.sizes) {
      const Spread s = timed([&] { window_bw(rank, n, o.window, false, a, b); }, o.iters);
      const double t = s.min, bytes = double(n) * o.window;
      rows.push_back({"bw", 2, n, t / o.window, bytes / t, bytes / t, scaled(s, 1.0 / o.window)});
    }
  if (pair && wants(o, "bibw"))
    for (long n : o.sizes) {
      const Spread s = timed([&] { window_bw(rank, n, o.window, true, a, b); }, o.iters);
      const double t = s.min, bytes = 2.0 * double(n) * o.window;
      rows.push_back({"bibw", 2, n, t / o.window, bytes / t, bytes / t, scaled(s, 1.0 / o.window)});
    }
  if (pair && wants(o, "exchange"))
    for (long n : o.sizes) {
      const Spread s = timed([&] { exchange(rank, n, a, b); }, o.iters);
      rows.push_back({"exchange", 2, n, s.min, n / s.min, n / s.min, s});
    }
  if (p >= 3 && wants(o, "shift"))
    for (long n : o.sizes) {
      const Spread s = timed([&] { shift(rank, p, n, a, b); }, o.iters);
      rows.push_back({"shift", p, n, s.min, n / s.min, n / s.min, s});
    }
  const double bus = p > 1 ? 2.0 * (p - 1) / p : 0;
  if (pair && wants(o, "ring"))
    for (long n : o.sizes) {
      const Spread s = timed([&] { ring_allreduce(rank, p, n, data, tmp); }, o.iters);
      rows.push_back({"ring", p, n, s.min, n / s.min, bus * n / s.min, s});
    }
  if (wants(o, "allreduce"))
    for (long n : o.sizes) {
      const int count = int(n / 4);
      const Spread s = timed(
          [&] { MPI_Allreduce(data.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }, o.iters);
      rows.push_back({"allreduce", p, n, s.min, n / s.min, bus * n / s.min, s});
    }

#ifdef DDLSIM_WITH_NCCL
  if (wants(o, "nccl")) {
    Nccl nccl(rank, p, max_n);
    for (long n : o.sizes) {
      const Spread s = timed([&] { nccl.allreduce(n); }, o.iters);
      rows.push_back({"nccl", p, n, s.min, n / s.min, bus * n / s.min, s});
    }
  }
#endif

  if (rank == 0) {
    std::printf("# ddlsim netbench: %d ranks; times are the slowest rank's, fastest of %d after a warm-up; pingpong: "
                "median half round trip of up to %d, p10 and p90 beside it\n", p, o.iters, o.reps);
    std::printf("%-10s %6s %12s %12s %10s %10s %10s %10s %8s\n", "test", "ranks", "size(B)", "time(us)", "algbw(GB/s)",
                "busbw(GB/s)", "p10(us)", "p90(us)", "reps");
    for (const Row& r : rows)
      std::printf("%-10s %6d %12ld %12.2f %10.4f %10.4f %10.2f %10.2f %8d\n", r.test.c_str(), r.ranks, r.bytes,
                  r.time_s * 1e6, r.algbw / 1e9, r.busbw / 1e9, r.spread.p10 * 1e6, r.spread.p90 * 1e6, r.spread.reps);
    if (!o.csv.empty()) {
      FILE* f = std::fopen(o.csv.c_str(), "w");
      if (!f) {
        std::fprintf(stderr, "ddlsim_netbench: cannot write %s\n", o.csv.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      std::fprintf(f, "test,ranks,bytes,time_s,algbw_Bps,busbw_Bps,min_s,p10_s,p50_s,p90_s,reps\n");
      for (const Row& r : rows)
        std::fprintf(f, "%s,%d,%ld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d\n", r.test.c_str(), r.ranks, r.bytes, r.time_s,
                     r.algbw, r.busbw, r.spread.min, r.spread.p10, r.spread.p50, r.spread.p90, r.spread.reps);
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}
