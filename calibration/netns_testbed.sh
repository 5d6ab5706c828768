#!/bin/sh
# A shaped test network on one Linux machine (root): N network namespaces PREFIX0..PREFIX{N-1},
# each joined to a bridge in the calling namespace by a veth pair, every port shaped with tbf to
# RATE in both directions (a full-duplex NIC of that rate per rank), plus an rsh agent that lets
# OpenMPI start ranks inside the namespaces (the namespace names are the mpirun hosts).
#   netns_testbed.sh up PREFIX N RATE SUBNET   e.g. up ddlnb 4 100mbit 10.77.3 (RATE none: unshaped)
#   netns_testbed.sh down PREFIX N
#   netns_testbed.sh agent                     (prints the path of the rsh agent)
set -eu
cmd=$1
here=$(cd "$(dirname "$0")" && pwd)
case "$cmd" in
  up)
    prefix=$2; n=$3; rate=$4; subnet=$5
    ip link add "${prefix}br" type bridge
    ip addr add "$subnet.254/24" dev "${prefix}br"
    ip link set "${prefix}br" up
    i=0
    while [ "$i" -lt "$n" ]; do
      ns="$prefix$i"
      ip netns add "$ns"
      ip link add "${prefix}h$i" type veth peer name "${prefix}e$i"
      ip link set "${prefix}e$i" netns "$ns"
      ip link set "${prefix}h$i" master "${prefix}br" up
      ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev "${prefix}e$i"
      ip -n "$ns" link set "${prefix}e$i" up
      ip -n "$ns" link set lo up
      # tbf: RATE, a bucket of 64 kB, at most 100 ms of queue; RATE none: no shaping (what the
      # hosts' CPUs move through veth; tbf with that bucket tops out near 0.4 GB/s).
      if [ "$rate" != none ]; then
        ip netns exec "$ns" tc qdisc add dev "${prefix}e$i" root tbf rate "$rate" burst 64kb latency 100ms
        tc qdisc add dev "${prefix}h$i" root tbf rate "$rate" burst 64kb latency 100ms
      fi
      i=$((i + 1))
    done ;;
  down)
    prefix=$2; n=$3
    i=0
    while [ "$i" -lt "$n" ]; do
      ip netns del "$prefix$i" 2>/dev/null || true
      ip link del "${prefix}h$i" 2>/dev/null || true
      i=$((i + 1))
    done
    ip link del "${prefix}br" 2>/dev/null || true ;;
  agent)
    echo "$here/netns_rsh_agent.sh" ;;
  *) echo "usage: $0 up PREFIX N RATE SUBNET | down PREFIX N | agent" >&2; exit 2 ;;
esac
