#include "calibration/interference.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace ddlsim {
inline namespace calibration_layer {

namespace {

using Clock = std::chrono::steady_clock;

Seconds since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One batch of GEMMs long enough to time: 256 x 256 x 256 products (FP32, Eigen).
struct Gemm {
  Eigen::MatrixXf a = Eigen::MatrixXf::Constant(256, 256, 0.5f), b = Eigen::MatrixXf::Constant(256, 256, 0.25f),
                  c = Eigen::MatrixXf::Zero(256, 256);
  Seconds batch_s(int products) {
    const auto t0 = Clock::now();
    for (int i = 0; i < products; ++i) c.noalias() += a * b;
    return since(t0);
  }
};

// Products in one timed batch of about `min_time_s`.
int calibrate_products(Gemm& g, Seconds min_time_s) {
  int n = 1;
  while (n < (1 << 24)) {
    const Seconds t = g.batch_s(n);
    if (t >= min_time_s / 4) return std::max(1, int(n * min_time_s / t));
    n *= 4;
  }
  return n;
}

Seconds median_batch_s(Gemm& g, int products, int repeats) {
  std::vector<Seconds> t;
  for (int i = 0; i < repeats; ++i) t.push_back(g.batch_s(products));
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

// A local rank's allreduce traffic until told to stop: reduce the peer's buffer into its own,
// copy the result back (the two halves of a 2-rank ring: reduce-scatter, all-gather).
void allreduce_traffic(std::vector<float>& mine, std::vector<float>& peer, const std::atomic<bool>& stop) {
  while (!stop.load(std::memory_order_relaxed)) {
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] += peer[i];
    std::copy(mine.begin(), mine.end(), peer.begin());
  }
}

}  // namespace

InterferenceMeasurement measure_cpu_interference(const InterferenceOptions& o) {
  Gemm g;
  const int products = calibrate_products(g, o.min_time_s);
  InterferenceMeasurement m;
  m.alone_s = median_batch_s(g, products, o.repeats);
  const std::size_t floats = std::size_t(o.buffer_bytes / sizeof(float));
  std::vector<std::vector<float>> bufs(2 * o.comm_threads, std::vector<float>(floats, 1e-3f));
  std::atomic<bool> stop{false};
  std::vector<std::thread> comm;
  for (int i = 0; i < o.comm_threads; ++i)
    comm.emplace_back(allreduce_traffic, std::ref(bufs[2 * i]), std::ref(bufs[2 * i + 1]), std::cref(stop));
  m.with_comm_s = median_batch_s(g, products, o.repeats);
  stop = true;
  for (auto& t : comm) t.join();
  return m;
}

}  // namespace calibration_layer
}  // namespace ddlsim
