#!/bin/bash
# GPU part of ../shared/acceptance/harness.sh on the device machine, with a
# ktraj built elsewhere and its libraries carried in .devcarry/ (the H200
# image lacks LMDB, cJSON and libarchive).  The harness output of the
# acceptance run (a full sweep of kernels[0]) is kept as WORK/sweep.ndjson.
# Usage (project root): bash tests/bench/accept_gpu.sh WORKDIR
set -u
W=${1:?workdir}
R=$PWD
export LD_LIBRARY_PATH=$R/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export KTRAJ=$R/.devcarry/bin/ktraj KTRAJ_KERNELS=$R/kernels
cat >"$W/tee-harness.sh" <<EOS
#!/bin/bash
set -o pipefail
"$R/build/harness/ktraj-harness" "\$@" | tee -a "$W/sweep.ndjson"
exit \${PIPESTATUS[0]}
EOS
chmod +x "$W/tee-harness.sh"
export KTRAJ_HARNESS=$W/tee-harness.sh
"$KTRAJ" --version || { echo "ktraj does not run here"; ldd "$KTRAJ" | grep 'not found'; exit 1; }
s0=$(date +%s)
bash .devcarry/accept/harness.sh 2>&1 | tee "$W/accept.txt"
echo "acceptance wall_s=$(( $(date +%s) - s0 ))" | tee -a "$W/accept.txt"
