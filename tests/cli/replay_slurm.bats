#!/usr/bin/env bats
# A replay plan run as a real Slurm array job (issue 19): a one-node cluster
# on this machine (munged, slurmctld and slurmd from Debian's munge and
# slurm-wlm, a configuration written here, ports of its own), a plan of CPU
# steps - the fixture's compile step and the first compile steps
# of a real corpus session - submitted with `sbatch --wait`, then
# `replay --collect`.  Skipped, saying why, where the packages are missing
# or the test does not run as root (slurmd starts jobs as their user).

setup_file() {
	for p in munged slurmctld slurmd sbatch sinfo; do
		command -v "$p" >/dev/null || export SLURM_SKIP="$p not installed (apt-get install slurm-wlm munge)"
	done
	[ "$(id -u)" = 0 ] || export SLURM_SKIP="the one-node cluster needs root"
	command -v bwrap >/dev/null || export SLURM_SKIP="bubblewrap not installed"
	[ -n "${SLURM_SKIP:-}" ] && return 0
	D=$(mktemp -d /tmp/ktraj-slurm.XXXXXX)
	export D
	mkdir -p "$D/state" "$D/spool"
	head -c 1024 /dev/urandom >"$D/munge.key"
	chmod 600 "$D/munge.key"
	munged --force -S "$D/munge.sock" --key-file="$D/munge.key" --log-file="$D/munged.log" \
		--pid-file="$D/munged.pid" --seed-file="$D/munged.seed"
	H=$(hostname -s)
	# the host name may not resolve (a container with no /etc/hosts line
	# for it): slurmd then never registers; both daemons listen on the
	# loopback address, given here
	# ports of its own, so a cluster already on this machine is untouched
	P1=$((20000 + RANDOM % 20000))
	cat >"$D/slurm.conf" <<EOF
ClusterName=ktrajtest
SlurmctldHost=$H(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldPort=$P1
SlurmdPort=$((P1 + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) State=UNKNOWN
PartitionName=ktraj Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF="$D/slurm.conf"
	slurmctld && slurmd || export SLURM_SKIP="the cluster did not start: $(tail -2 "$D"/slurm*.log)"
	for _ in $(seq 1 30); do
		sinfo -h -o %T 2>/dev/null | grep -q idle && break
		sleep 1
	done
	sinfo -h -o %T 2>/dev/null | grep -q idle || export SLURM_SKIP="the node never became idle: $(tail -1 "$D/slurmctld.log") / $(tail -1 "$D/slurmd.log")"
}

teardown_file() {
	[ -n "${D:-}" ] || return 0
	scontrol shutdown >/dev/null 2>&1 || true
	pids=
	for f in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/munged.pid"; do
		[ -f "$f" ] && pids="$pids $(cat "$f")"
	done
	kill $pids 2>/dev/null
	sleep 1
	# a slurmd still retrying its registration ignores SIGTERM, and bats
	# waits for it (it holds bats' output open)
	kill -9 $pids 2>/dev/null
	rm -rf "$D"
}

@test "slurm: a plan of CPU steps (fixture and corpus compile steps) runs as an array job; --collect records every result" {
	[ -z "${SLURM_SKIP:-}" ] || skip "$SLURM_SKIP"
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/replay/cc_bench_session.jsonl" >/dev/null
	runs=(645f1b7e727f89057b7c07023044f3e3)
	C="${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}/claude_code"
	f=$(grep -l 'make -j' "$C"/*.jsonl 2>/dev/null | head -1)
	if [ -n "$f" ]; then
		"$KTRAJ" import "$f" >/dev/null
		R2=$("$KTRAJ" ls --json --sort name | python3 -c 'import json,sys; [print(json.loads(l)["run"]) for l in sys.stdin]' | grep -v 645f1b7e | head -1)
		s=$("$KTRAJ" log "$R2" --kind compile --json | python3 -c 'import json,sys; print(",".join(str(json.loads(l)["seq"]) for l in list(sys.stdin)[:3]))')
		[ -n "$s" ]
	fi
	# a folder with a space and quotes: sbatch's directives are not sh
	P="$BATS_TEST_TMPDIR/plan 'a\"b"
	# CPU steps only (the one-node cluster has no GPU; bench steps are
	# GPU tasks): the fixture's compile step
	# each task's job asks for its step's memory (--mem + --max-output
	# and the bundle): Slurm refuses a job a node cannot hold
	"$KTRAJ" replay --plan "$P" "${runs[@]}" --all-compile --array-max 2 --mem 1G >/dev/null
	grep -qx '#SBATCH --mem=2048M' "$P/slurm.sbatch"
	if [ -n "${s:-}" ]; then
		# three steps in arrays of two: submit.sh starts both, the
		# second with its offset (Slurm's MaxArraySize, issue 19) and,
		# under --array-max, after the first (the cap is the plan's)
		"$KTRAJ" replay --plan "$P.c" "$R2" --steps "$s" --array-size 2 --array-max 1 --mem 1G >/dev/null
		[ -f "$P.c/submit.sh" ]
	fi
	run timeout 600 sbatch --wait --parsable "$P/slurm.sbatch"
	echo "$output"
	[ "$status" -eq 0 ]
	job=$output
	[ -f "$P/logs/${job}_0.out" ]
	if [ -n "${s:-}" ]; then
		run timeout 600 sh "$P.c/submit.sh" --wait
		[ "$status" -eq 0 ]
	fi
	run "$KTRAJ" replay --collect "$P" --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
r = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [(x["step"], x["verdict"]) for x in r] == [(7, "reproduced")], r' "$output"
	[ "$("$KTRAJ" log 645f1b7e --kind replay | wc -l)" -eq 1 ]
	if [ -n "${s:-}" ]; then
		# every corpus step has a verdict recorded in the store (what it
		# is depends on the machine: its make may find no CUDA here)
		run "$KTRAJ" replay --collect "$P.c" --json
		echo "$output"
		python3 -c '
import json, sys
r = [json.loads(l) for l in sys.argv[1].splitlines()]
assert len(r) == 3 and all(x["verdict"] in ("reproduced", "diverged", "failed", "faster", "slower") for x in r), r' "$output"
		[ "$("$KTRAJ" log "$R2" --kind replay | wc -l)" -eq 3 ]
	fi
}
