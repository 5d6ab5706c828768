#!/bin/sh
# What Open MPI's TCP BTL and PyTorch's gloo move between two processes when nothing but the
# hosts' CPUs bounds them: two network namespaces on one unshaped bridge (netns_testbed.sh, RATE
# none), `ddlsim netbench` of both libraries (one-way bw, both-ways exchange, the library's own
# allreduce) at 16, 64 and 256 MiB. The exchange is what cluster.tcp_thread_GBps stands for: one
# thread sending and receiving at once. Then both libraries between two ranks of this one host
# (Open MPI's shared-memory BTL, gloo's TCP over loopback), each rank on its own core. Writes
# OUT_DIR/tcp-unshaped-{mpi,gloo}.csv and OUT_DIR/one-host-{mpi,gloo}.csv.
# Usage (root, from a build): calibration/tcp_library_rates.sh DDLSIM OUT_DIR
set -eu
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -d "$2" ]; then
  echo "usage: $0 DDLSIM OUT_DIR (the ddlsim binary, an existing folder for the CSVs)" >&2
  exit 2
fi
ddlsim=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
prefix=ddltl subnet=10.77.93
cleanup() { sh "$here/netns_testbed.sh" down $prefix 2 >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
sh "$here/netns_testbed.sh" up $prefix 2 none $subnet
agent=$(sh "$here/netns_testbed.sh" agent)
for lib in mpi gloo; do
  extra=""
  [ "$lib" = gloo ] && extra="--library gloo --master-addr $subnet.1"
  # shellcheck disable=SC2086
  "$ddlsim" netbench $extra --np 2 --hosts ${prefix}0,${prefix}1 --rsh-agent "$agent" --sizes 16M,64M,256M \
    --iters 3 --window 2 --tests bw,exchange,ring --csv "$out/tcp-unshaped-$lib.csv" -- \
    --mca oob_tcp_if_include $subnet.0/24 --mca btl_tcp_if_include $subnet.0/24 --bind-to none
done
cleanup
for lib in mpi gloo; do
  extra=""
  [ "$lib" = gloo ] && extra="--library gloo --master-addr 127.0.0.1"
  # shellcheck disable=SC2086
  "$ddlsim" netbench $extra --np 2 --sizes 16M,64M,256M --iters 3 --window 2 --tests bw,exchange,ring \
    --csv "$out/one-host-$lib.csv" -- --bind-to core
done
