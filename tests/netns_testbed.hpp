// A shaped test network for the timed tests: n network namespaces joined by veth pairs to a
// bridge, every port shaped with tbf (calibration/netns_testbed.sh), removed again when the test
// ends (pass, fail or skip); OpenMPI starts ranks inside them through an rsh agent.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "test_util.hpp"

namespace testutil {

const std::string kNetnsScript = source_dir() + "/calibration/netns_testbed.sh";
const std::string kNetnsAgent = source_dir() + "/calibration/netns_rsh_agent.sh";

inline std::string bin_dir() {
  const std::string b = DDLSIM_BINARY;
  return b.substr(0, b.find_last_of('/'));
}

inline int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

struct Testbed {
  int n = 4;
  std::string prefix = "dnb" + std::to_string(::getpid() % 100000);
  std::string subnet = free_subnet("10.79", ::getpid() % 250);
  bool up = false;
  std::string why_not;

  explicit Testbed(int ranks, const std::string& rate = "100mbit") : n(ranks) {
    if (::geteuid() != 0) {
      why_not = "not root: network namespaces need CAP_NET_ADMIN";
      return;
    }
    if (sh("command -v mpirun") != 0) {
      why_not = "mpirun not found (Debian: openmpi-bin)";
      return;
    }
    if (!exists(bin_dir() + "/ddlsim_netbench")) {
      why_not = "ddlsim_netbench not built (no MPI at configure time)";
      return;
    }
    if (sh("command -v unshare && command -v tc && command -v ip") != 0) {
      why_not = "ip, tc or unshare missing (iproute2, util-linux)";
      return;
    }
    const int rc = sh("sh " + kNetnsScript + " up " + prefix + " " + std::to_string(n) + " " + rate + " " + subnet);
    up = true;  // tear down whatever part was made
    if (rc != 0)
      why_not = "could not create namespaces, veth pairs or tbf qdiscs here (" + kNetnsScript + " up failed)";
  }
  ~Testbed() {
    if (up) sh("sh " + kNetnsScript + " down " + prefix + " " + std::to_string(n));
  }
  std::string hosts() const {
    std::string h;
    for (int i = 0; i < n; ++i) h += (i ? "," : "") + prefix + std::to_string(i);
    return h;
  }
  // mpirun's options for this network (after netbench's `--`).
  std::string mpi_options() const {
    return " --mca btl tcp,self --mca btl_tcp_if_include " + subnet + ".0/24 --mca oob_tcp_if_include " + subnet +
           ".0/24 --mca mpi_yield_when_idle 1";
  }
};

// netbench's calibration rows at 2 to bed.n ranks (2 and 4 MiB: pingpong, bw, exchange and ring
// at 2 ranks, shift and ring above), netfit of them with --check: the fitted platform, the rows
// and what both printed, each row the fastest of `iters` repetitions. `mpi_extra`: more mpirun
// options (the transport's settings).
struct Measured {
  bool ok = false;
  std::string log, csv, xml;
};

inline Measured measure_and_fit(const Testbed& bed, const TempFile& dir, const std::string& mpi_extra = "",
                                int iters = 2) {
  Measured m;
  for (int np = 2; np <= bed.n; ++np) {
    const std::string tests = np == 2 ? "pingpong,bw,exchange,ring" : "shift,ring";
    const std::string out = dir.dir() + "/n" + std::to_string(np) + ".csv";
    const auto r = run_ddlsim("netbench --np " + std::to_string(np) + " --hosts " + bed.hosts() + " --rsh-agent " +
                              kNetnsAgent + " --sizes 2M,4M --iters " + std::to_string(iters) + " --window 2 --tests " +
                              tests + " --csv " + out + " --" + bed.mpi_options() + mpi_extra);
    m.log += r.out;
    if (r.code != 0) return m;
    const std::string text = slurp(out);
    m.csv += np == 2 ? text : text.substr(text.find('\n') + 1);
  }
  std::ofstream(dir.path()) << m.csv;
  m.xml = dir.dir() + "/fitted.xml";
  const auto fit = run_ddlsim("netfit " + dir.path() + " --out " + m.xml + " --check");
  m.log += fit.out;
  m.ok = fit.code == 0;
  return m;
}

}  // namespace testutil
