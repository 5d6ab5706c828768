#!/bin/sh
# What one CPU thread moves through TCP per direction while sending and receiving at once
# (cluster.tcp_thread_GBps): two network namespaces joined by a veth pair (root), one process in
# each running calibration/tcp_thread_rate.py, REPEATS times. Writes CSV to stdout:
#   repeat,side,bytes,seconds,GBps_each_way
# Usage: calibration/tcp_thread_rate.sh [REPEATS] [BYTES]   (defaults 5, 4 GiB)
set -eu
repeats=${1:-5}
bytes=${2:-4294967296}
here=$(cd "$(dirname "$0")" && pwd)
a=ddltcp0 b=ddltcp1
cleanup() { ip netns del $a 2>/dev/null || true; ip netns del $b 2>/dev/null || true; }
trap cleanup EXIT
cleanup
ip netns add $a
ip netns add $b
ip link add ${a}v type veth peer name ${b}v
ip link set ${a}v netns $a
ip link set ${b}v netns $b
ip -n $a addr add 10.79.0.1/24 dev ${a}v
ip -n $b addr add 10.79.0.2/24 dev ${b}v
ip -n $a link set ${a}v up
ip -n $b link set ${b}v up
echo "repeat,side,bytes,seconds,GBps_each_way"
i=1
while [ "$i" -le "$repeats" ]; do
  ip netns exec $b /usr/bin/python3 "$here/tcp_thread_rate.py" listen 10.79.0.2 5301 "$bytes" > /tmp/ddltcp_listen.$$ &
  sleep 0.5
  ip netns exec $a /usr/bin/python3 "$here/tcp_thread_rate.py" connect 10.79.0.2 5301 "$bytes" | sed "s/^/$i,/"
  wait
  sed "s/^/$i,/" /tmp/ddltcp_listen.$$
  rm -f /tmp/ddltcp_listen.$$
  i=$((i + 1))
done
