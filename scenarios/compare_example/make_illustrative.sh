#!/usr/bin/env bash
# Writes poti_illustrative.csv to stdout: NOT a measurement. ddlsim's own prediction of the PCAD
# study (scenarios/pcad_factorial.ini) on a slower network (0.07 GB/s between nodes) with slower
# kernels (compute.efficiency 0.45), each configuration's time moved by up to +-2 % (a fixed
# pseudo-random draw: sin of its row number) and written as three replications at -3 %, 0 and +3 %,
# for docs/compare.md's walk through compare, fit and simulate --overlay.
#   scenarios/compare_example/make_illustrative.sh build/ddlsim > scenarios/compare_example/poti_illustrative.csv
set -euo pipefail
ddlsim=${1:?usage: $0 PATH/TO/ddlsim}
here=$(cd "$(dirname "$0")" && pwd)
"$ddlsim" sweep "$here/../pcad_factorial.ini" --jobs 1 --cluster.inter_bw_GBps=0.07 --compute.efficiency=0.45 |
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
                     print "model,framework,batch,nodes,replication,epoch_time_s"; next }
           { t = $col["epoch_time_s"] * (1 + 0.02 * sin(NR * 12.9898))
             for (r = 1; r <= 3; r++)
               printf "%s,%s,%s,%s,%d,%.2f\n", $col["model.name"], $col["training.framework"],
                      $col["training.batch_per_gpu"], $col["cluster.nodes"], r,
                      t * (0.97 + 0.03 * (r - 1)) }'
