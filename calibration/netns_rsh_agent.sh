#!/bin/sh
# rsh agent for OpenMPI (--mca plm_rsh_agent THIS): "host" = a network namespace name. The
# command also gets its own hostname (a UTS namespace named after the host), so that the OpenMPI
# daemons of different namespaces keep separate session directories under /tmp.
host=$1
shift
exec ip netns exec "$host" unshare --uts /bin/sh -c "hostname $host; $*"
