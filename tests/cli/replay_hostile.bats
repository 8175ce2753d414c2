#!/usr/bin/env bats
# Hostile steps: crafted ktraj JSONL steps appended to a store, then
# `ktraj replay`.  Every attack of issue 16 must be refused or contained by
# the sandbox, and an honest step must still reproduce.  Each case runs as
# the caller and, when the caller is root, again as an unprivileged user
# (created here with useradd; that half is left out, with a note in the
# output, where the user or its user namespaces are not available).  Sizes are scaled down with replay's options (--mem,
# --max-output, --max-procs): the same mechanism as the issue's 3 GiB and
# 1,500 processes, in seconds.
#
# A hostile command ends `exit 0` when its attack worked and `exit 3` when
# it was refused; the test then reads results.exit_code of the replay row,
# and checks the host side (files, processes) itself.

bats_require_minimum_version 1.5.0

HU=ktraj-hostile

setup_file() {
	if [ "$(id -u)" = 0 ] && ! id -u "$HU" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin "$HU" >/dev/null 2>&1 || true
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "# not root: every case runs as $(id -un) only" >&3
	elif ! user_half; then
		echo "# no unprivileged user with user namespaces here: every case runs as root only" >&3
	fi
}

# the unprivileged user can run bubblewrap here (user namespaces allowed)
user_half() {
	[ "$(id -u)" = 0 ] && id -u "$HU" >/dev/null 2>&1 &&
		setpriv --reuid="$HU" --regid="$(id -g "$HU")" --clear-groups \
			bwrap --unshare-all --unshare-user --ro-bind / / true 2>/dev/null
}

setup() {
	command -v bwrap >/dev/null || skip "bubblewrap is not installed (apt-get install bubblewrap)"
	# the sandbox needs unprivileged user namespaces (as root it runs as nobody)
	local as=()
	[ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${as[@]}" bwrap --unshare-all --unshare-user --ro-bind / / true 2>/dev/null ||
		skip "bubblewrap cannot make user namespaces here"
	command -v cc >/dev/null || skip "no C compiler"
	D=$(mktemp -d /tmp/ktraj-hostile.XXXXXX)
	chmod 755 "$D"
	cp "$KTRAJ" "$D/ktraj"
	chmod 755 "$D/ktraj"
	MARK=ktraj_hostile_$$_$RANDOM
	# the system's python, not a version manager's wrapper (seconds per
	# call on a loaded machine)
	PY=python3
	[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
	WHO=me
	if user_half; then WHO="me $HU"; fi
	LISTENER=
}

teardown() {
	# setup may have skipped before setting D and MARK: an empty MARK
	# would make the paths below /etc, /tmp, ... themselves (run as root)
	[ -n "${LISTENER:-}" ] && kill "$LISTENER" 2>/dev/null
	case "${MARK:-}" in
	ktraj_hostile_*) rm -rf "/etc/$MARK" "/tmp/$MARK" "/dev/shm/$MARK" "/var/tmp/$MARK" \
			     "/run/$MARK.sock" ;;
	esac
	case "${D:-}" in
	/tmp/ktraj-hostile.?*) rm -rf "$D" ;;
	esac
	true
}

as() { # as WHO CMD...: run CMD as the caller (me) or as user WHO
	local who=$1
	shift
	if [ "$who" = me ]; then
		"$@"
	else
		setpriv --reuid="$who" --regid="$(id -g "$who")" --clear-groups "$@"
	fi
}

as_bg() { # as_bg WHO CMD...: as, in the background; BG_PID is CMD's own pid
	# (env and setpriv exec), not a subshell's, so kill -9 "$BG_PID"
	# kills ktraj itself.  `as ... &` would fork a subshell to run the
	# function, and killing that leaves ktraj running.
	local who=$1
	shift
	if [ "$who" = me ]; then
		"$@" &
	else
		setpriv --reuid="$who" --regid="$(id -g "$who")" --clear-groups "$@" &
	fi
	BG_PID=$!
}

userdir() { # userdir WHO: a directory of WHO's own
	mkdir -p "$D/$1"
	[ "$1" = me ] || chown "$1" "$D/$1"
	echo "$D/$1"
}

step() { # step WHO COMMAND: a store of WHO's with run h, step 1 = COMMAND
	local dir
	dir=$(userdir "$1")
	"$PY" -c 'import json,sys
print(json.dumps({"seq":1,"kind":"tool_call","actor":"agent","payload":{"tool":"Bash","call_id":"c1","args":{"command":sys.argv[1]}}}))
print(json.dumps({"seq":2,"parent":1,"kind":"tool_result","actor":"tool","payload":{"call_id":"c1","ok":True,"output":sys.argv[2]}}))' \
		"$2" "${3:-}" >"$dir/step.jsonl"
	as "$1" env KTRAJ_STORE="$dir/s.ktraj" "$D/ktraj" append h <"$dir/step.jsonl" >/dev/null
}

hostile() { # hostile WHO COMMAND [replay options]: append and replay (bats run)
	local who=$1 cmd=$2
	shift 2
	step "$who" "$cmd"
	# KTRAJ_HOSTILE_OPTS: options added to every case, e.g. --gpu to run
	# them under the GPU profile on a GPU machine (harness/GPU_LOG.md)
	# shellcheck disable=SC2086
	run as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json ${KTRAJ_HOSTILE_OPTS:-} "$@"
}

get() { # get PATH: a field of the replay row in $output ("a.b.c"); bats
	# puts stderr in $output too (replay's one line when the step gets no
	# cgroup of its own), so the row is the first line that is JSON
	echo "$output" | "$PY" -c 'import json,sys
v=json.loads(next(l for l in sys.stdin if l.startswith("{")))
for k in sys.argv[1].split("."):
    v=v.get(k) if isinstance(v,dict) else None
print(json.dumps(v) if isinstance(v,(list,dict,bool)) or v is None else v)' "$1"
}

nocg() { # $stderr less replay's line that the step gets no cgroup of its own
	grep -v '^ktraj: replay: no cgroup for the step' <<<"$stderr" || true
}

refused() { # the step ran in the sandbox, was judged, and its attack failed
	echo "# $1: status $status: $output" >&3
	[ "$status" -eq 0 ]
	[ "$(get isolation.sandbox)" = bubblewrap ]
	[ "$(get results.exit_code)" = 3 ]
}

refused_by_all() { # refused_by_all COMMAND [replay options]: refused for each user
	local who cmd=$1
	shift
	for who in $WHO; do
		hostile "$who" "$cmd" "$@"
		refused "$who"
	done
}

@test "an honest step still reproduces, and the replay event says how it was isolated" {
	for who in $WHO; do
		step "$who" "echo hello" "hello"
		run as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json
		echo "# $who: $output" >&3
		[ "$status" -eq 0 ]
		[ "$(get verdict)" = reproduced ]
		[ "$(get isolation.sandbox)" = bubblewrap ]
		[ "$(get isolation.namespaces)" = '["user", "pid", "mount", "ipc", "uts", "net", "cgroup"]' ]
		[ "$(get isolation.seccomp)" = true ]
		[ "$(get isolation.caps)" = none ]
		[ "$(get isolation.network)" = true ]
		[ "$(get network_isolated)" = true ]
		[ "$(get isolation.ptys)" = false ]
		# a cgroup, or the word that there is none (then shared memory is
		# outside the memory limit)
		[ "$(get isolation.cgroup)" = false ] || [ "$(get isolation.cgroup.version)" -ge 1 ]
		if [ "$who" = me ] && [ "$(id -u)" = 0 ]; then
			[ "$(get isolation.uid)" = nobody ]
		else
			[ "$(get isolation.uid)" = caller ]
		fi
		# what the row says is what the store keeps
		[ "$(as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" show h 3 --json |
			"$PY" -c 'import json,sys; p=json.load(sys.stdin)["payload"]; print(p["isolation"]["sandbox"], p["isolation"]["limits"]["procs"])')" = "bubblewrap 256" ]
	done
}

@test "a C build and bench step still reproduces in the sandbox" {
	for who in $WHO; do
		dir=$(userdir "$who")
		cp "$BATS_TEST_DIRNAME/../data/replay/cc_bench_session.jsonl" "$dir/"
		chmod 644 "$dir/cc_bench_session.jsonl"
		R=$(as "$who" env KTRAJ_STORE="$dir/s.ktraj" "$D/ktraj" import --json "$dir/cc_bench_session.jsonl" |
			"$PY" -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
		S=$(as "$who" env KTRAJ_STORE="$dir/s.ktraj" "$D/ktraj" log "$R" --json |
			"$PY" -c 'import json,sys; print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="bench"))')
		run as "$who" env KTRAJ_STORE="$dir/s.ktraj" "$D/ktraj" replay "$R" "$S" --json
		echo "# $who: $output" >&3
		[ "$status" -eq 0 ]
		[ "$(get verdict)" = reproduced ]
		[ "$(get isolation.sandbox)" = bubblewrap ]
	done
}

@test "the text output shows the trajectory's control characters instead of sending them to the terminal" {
	for who in $WHO; do
		# a file name the command needs and the trajectory never showed
		# is quoted in the reason
		step "$who" $'cat \e[2J\e]0;x\a\e[31mx.c' "hi"
		run as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1
		echo "# $who: status $status: $(printf %q "$output")" >&3
		[ "$status" -eq 0 ]
		[[ "$output" == *'never showed'* ]]
		[[ "$output" != *$'\e'* ]]
		[[ "$output" != *$'\a'* ]]
		[[ "$output" == *'x^G^[[31mx.c'* ]]
	done
}

@test "remounting / read-write and writing the host's /etc is refused" {
	for who in $WHO; do
		hostile "$who" "mount -o remount,rw / 2>/dev/null; mount -o remount,rw /etc 2>/dev/null; echo x >/etc/$MARK 2>/dev/null && exit 0; exit 3"
		refused "$who"
		[ ! -e "/etc/$MARK" ]
	done
}

@test "umount /proc and new mounts are refused" {
	refused_by_all "umount /proc 2>/dev/null && exit 0; umount -l /proc 2>/dev/null && exit 0; mount -t tmpfs none /tmp 2>/dev/null && exit 0; exit 3"
}

@test "nsenter into another process's namespaces is refused" {
	refused_by_all 'for p in $(ls /proc | grep -E "^[0-9]+$"); do nsenter -t $p -a true 2>/dev/null && exit 0; nsenter -t $p -m -n true 2>/dev/null && exit 0; done; unshare -Ur true 2>/dev/null && exit 0; unshare -n true 2>/dev/null && exit 0; exit 3'
}

@test "the seccomp filter refuses mount, unshare, setns, ptrace, pidfd_getfd, kcmp, keyrings, bpf, perf, userfaultfd and any persona but the query and the current one" {
	[ "$(uname -m)" = x86_64 ] || skip "syscall numbers below are x86_64's"
	for who in $WHO; do
		hostile "$who" "python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
L = ctypes.c_long
calls = [(165, b\"none\", b\"/tmp\", b\"tmpfs\", L(0), None), (272, L(0x10000000)), (308, L(0), L(0)),
         (101, L(0), L(0), L(0), L(0)), (250, L(0), L(-3), L(0)), (248, b\"user\", b\"k\", b\"v\", L(1), L(-2)),
         (321, L(0), None, L(0)), (298, None, L(0), L(-1), L(-1), L(0)), (323, L(0)), (135, L(0x0040000)),
         (135, L(0x80040000)), (135, L(0x100400000)), (438, L(-1), L(0), L(0)), (312, L(1), L(1), L(0), L(0), L(0))]
bad = []
for c in calls:
    r = libc.syscall(L(c[0]), *c[1:])
    if r != -1 or ctypes.get_errno() != 1:
        bad.append((c[0], r, ctypes.get_errno()))
print(bad)
sys.exit(3 if not bad else 0)
'"
		refused "$who"
	done
}

@test "nothing of the host's secrets or its /tmp is visible: /etc/shadow, /root, /home, the store" {
	refused_by_all "[ -e /etc/shadow ] && exit 0; [ -e /root ] && exit 0; [ -e /home ] && exit 0; [ -e '$D' ] && exit 0; cat /etc/shadow /root/.ssh/* 2>/dev/null && exit 0; exit 3"
}

@test "ktraj's environment (its secrets) is not readable: /proc/1/environ (bwrap), /proc/self/environ, the parent's" {
	# the value is assembled in the step, so no command line holds it
	export KTRAJ_TEST_SECRET=hostile-$MARK-value
	refused_by_all "v=hostile-$MARK; v=\$v-value; for f in /proc/1/environ /proc/self/environ /proc/\$PPID/environ /proc/[0-9]*/environ; do tr '\\0' '\\n' <\$f 2>/dev/null | grep -qx \"KTRAJ_TEST_SECRET=\$v\" && exit 0; done; exit 3"
}

@test "writes to /tmp, /dev/shm, /var/tmp and /etc do not reach the host" {
	for who in $WHO; do
		hostile "$who" "for f in /tmp/$MARK /dev/shm/$MARK /var/tmp/$MARK /etc/$MARK; do echo x >\$f 2>/dev/null; done; exit 3"
		refused "$who"
		[ ! -e "/tmp/$MARK" ]
		[ ! -e "/dev/shm/$MARK" ]
		[ ! -e "/var/tmp/$MARK" ]
		[ ! -e "/etc/$MARK" ]
	done
}

@test "/dev is private: no block device, nothing but the standard nodes" {
	refused_by_all 'for e in /dev/*; do case ${e#/dev/} in core|fd|full|null|ptmx|pts|random|shm|stderr|stdin|stdout|tty|urandom|zero) ;; *) exit 0 ;; esac; done; [ -n "$(find /dev -type b 2>/dev/null)" ] && exit 0; exit 3'
}

@test "/sys, /run and /var/run are not there, and a unix socket under /run cannot be reached" {
	sock=
	if [ -w /run ]; then
		sock=/run/$MARK.sock
		"$PY" -c 'import socket,os,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1],0o666); s.listen(5); time.sleep(120)' "$sock" 3>&- &
		LISTENER=$!
		for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
	fi
	refused_by_all "[ -e /sys/kernel ] && exit 0; [ -e /run ] && exit 0; [ -e /var/run ] && exit 0; [ -n '$sock' ] && python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$sock\")' 2>/dev/null && exit 0; exit 3"
}

@test "a listener on the host's 127.0.0.1 cannot be reached" {
	"$PY" -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(5); open(sys.argv[1],"w").write(str(s.getsockname()[1])); time.sleep(120)' "$D/port" 3>&- &
	LISTENER=$!
	for _ in $(seq 50); do [ -s "$D/port" ] && break; sleep 0.1; done
	port=$(cat "$D/port")
	for who in $WHO; do
		hostile "$who" "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $port), 2)' 2>/dev/null && exit 0; exit 3"
		refused "$who"
		[ "$(get isolation.network)" = true ]
	done
}

@test "the process count is limited (1,500 processes, scaled: 100 under --max-procs 40)" {
	for who in $WHO; do
		hostile "$who" "python3 -c '
import os, sys, time
n = 0
try:
    for i in range(100):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        n += 1
except OSError:
    pass
sys.exit(0 if n >= 100 else 3)
'" --max-procs 40
		refused "$who"
		[ "$(get isolation.limits.procs)" = 40 ]
	done
}

@test "/tmp and /dev/shm are inside the memory limit (3 GiB under 1 GiB, scaled: 300 MiB under 256 MiB)" {
	refused_by_all "dd if=/dev/zero of=/tmp/big bs=1M count=300 2>/dev/null && exit 0; rm -f /tmp/big; dd if=/dev/zero of=/dev/shm/big bs=1M count=300 2>/dev/null && exit 0; exit 3" --mem 268435456
}

@test "/dev itself cannot be filled: it is read-only, /dev/null still takes writes (300 MiB under --max-output 64 MiB)" {
	refused_by_all "echo x >/dev/null || exit 4; head -c 314572800 /dev/zero >/dev/ktraj_fill 2>/dev/null && exit 0; exit 3" --max-output 67108864 --mem 268435456
}

@test "a shared mapping is inside the memory limit (3 GiB under 1 GiB, scaled: 600 MiB under 256 MiB)" {
	for who in $WHO; do
		hostile "$who" "python3 -c '
import mmap, sys
try:
    m = mmap.mmap(-1, 600 << 20, mmap.MAP_SHARED)
    for i in range(0, len(m), 4096):
        m[i] = 1
except (OSError, MemoryError):
    sys.exit(3)
sys.exit(0)
'" --mem 268435456
		refused "$who"
		[ "$(get isolation.limits.memory)" = RLIMIT_AS ]
	done
}

# contained_mem WHO: the step that filled shared memory did not get it all:
# with a cgroup it was stopped (refused, or killed by the OOM killer, which
# the reason names); without one (not root, nothing delegated) the event
# says so and the case is left out for WHO.  Returns 1 when it was checked.
contained_mem() {
	echo "# $1: status $status: $output" >&3
	[ "$status" -eq 0 ]
	[ "$(get isolation.sandbox)" = bubblewrap ]
	if [ "$(get isolation.cgroup)" = false ]; then
		echo "# $1: no cgroup could be made: shared memory is outside the limit (recorded)" >&3
		return 0
	fi
	[ "$(get isolation.cgroup.mem_bytes)" = 402653184 ]
	[ "$(get verdict)" = failed ]
	case "$(get results.exit_code)" in
	3) ;;
	137) [[ "$(get reason)" == *"out of memory: the OOM killer stopped"*"cgroup limit (402653184 bytes"* ]] ;;
	*) return 1 ;;
	esac
	CHECKED=$((CHECKED + 1))
}

@test "pages written into a memfd (never mapped) are inside the memory limit (600 MiB under 256 MiB + 128 MiB of files)" {
	CHECKED=0
	for who in $WHO; do
		hostile "$who" "python3 -c '
import os, sys
fd = os.memfd_create(\"m\")
b = b\"x\" * (1 << 20)
try:
    for i in range(600):
        os.write(fd, b)
except OSError:
    sys.exit(3)
sys.exit(0)
'" --mem 268435456
		contained_mem "$who"
	done
	[ "$CHECKED" -gt 0 ] || skip "no cgroup can be made here"
}

@test "SysV shared memory touched and detached is inside the memory limit (3 x 150 MiB under 256 MiB + 128 MiB of files)" {
	CHECKED=0
	for who in $WHO; do
		hostile "$who" "for i in 1 2 3; do python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmdt.argtypes = [ctypes.c_void_p]
n = 150 << 20
i = libc.shmget(0, n, 0o1600)
a = libc.shmat(i, None, 0) if i >= 0 else None
if a is None or a == ctypes.c_void_p(-1).value:
    sys.exit(3)
ctypes.memset(a, 1, n)
libc.shmdt(a)
' || exit 3; done; exit 0" --mem 268435456
		contained_mem "$who"
	done
	[ "$CHECKED" -gt 0 ] || skip "no cgroup can be made here"
}

@test "a fork bomb stays under the process limits and dies whole at the timeout" {
	for who in $WHO; do
		tag=ktraj_bomb_$RANDOM$RANDOM
		step "$who" "python3 -c '
import os, time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
' $tag"
		as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json --timeout 8 \
			--max-procs 40 >"$D/bg.out" 2>&1 </dev/null 3>&- &
		pid=$!
		most=0
		for _ in $(seq 40); do
			n=$(pgrep -fc "$tag" || true)
			[ "$n" -gt "$most" ] && most=$n
			sleep 0.1
		done
		wait "$pid"
		output=$(cat "$D/bg.out")
		echo "# $who: at most $most processes: $output" >&3
		[ "$most" -gt 0 ]
		[ "$most" -le 44 ]
		[ "$(get verdict)" = failed ]
		[[ "$(get reason)" == *watchdog* ]]
		[ "$(get isolation.cgroup)" = false ] || [ "$(get isolation.cgroup.pids)" = 44 ]
		! pgrep -f "$tag" || false
	done
}

@test "no pseudo-terminal can be opened: /dev/ptmx leads nowhere" {
	for who in $WHO; do
		hostile "$who" "python3 -c 'import os; os.open(\"/dev/ptmx\", os.O_RDWR)' 2>/dev/null && exit 0; python3 -c 'import pty; pty.openpty()' 2>/dev/null && exit 0; : >/dev/pts/x 2>/dev/null && exit 0; exit 3"
		refused "$who"
		[ "$(get isolation.ptys)" = false ]
	done
}

@test "the step's cgroup is removed after it, and one a killed ktraj left is removed by the next replay" {
	[ "$(id -u)" = 0 ] || skip "only root makes cgroups here"
	dur=$((70000 + RANDOM))
	step me "sleep $dur; exit 0"
	env KTRAJ_STORE="$D/me/s.ktraj" "$D/ktraj" replay h 1 --json >"$D/bg.out" 2>&1 </dev/null 3>&- &
	pid=$!
	for _ in $(seq 200); do pgrep -f "sleep $dur" >/dev/null && break; sleep 0.1; done
	pgrep -f "sleep $dur" >/dev/null
	left=$(find /sys/fs/cgroup -maxdepth 8 -type d -name "ktraj-replay-$pid" 2>/dev/null)
	[ -n "$left" ] || skip "no cgroup could be made here"
	kill -9 "$pid"
	wait "$pid" || true
	for _ in $(seq 50); do pgrep -f "sleep $dur" >/dev/null || break; sleep 0.1; done
	! pgrep -f "sleep $dur" || false
	# ktraj had no chance to remove it
	[ -n "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "ktraj-replay-$pid" 2>/dev/null)" ]
	rm -rf "$D/me"
	step me "echo hello" "hello"
	env KTRAJ_STORE="$D/me/s.ktraj" "$D/ktraj" replay h 1 --json >"$D/bg.out" 2>&1 </dev/null 3>&- &
	pid2=$!
	wait "$pid2"
	[ -z "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "ktraj-replay-$pid" 2>/dev/null)" ]
	[ -z "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "ktraj-replay-$pid2" 2>/dev/null)" ]
	output=$(cat "$D/bg.out")
	[ "$(get verdict)" = reproduced ]
	[ "$(get isolation.cgroup.version)" -ge 1 ]
}

@test "the output limit is on the total, not per file (3 x 2 GiB, scaled: 3 x 12 MiB in a 32 MiB workspace)" {
	for who in $WHO; do
		hostile "$who" "for i in 1 2 3; do dd if=/dev/zero of=f\$i bs=1M count=12 2>/dev/null || exit 3; done; exit 0" --max-output 67108864
		refused "$who"
		[ "$(get isolation.work_bytes)" = 33554432 ]
	done
}

@test "a step that only prints cuda gets the CPU profile (RLIMIT_AS, no /dev/nvidia*); --gpu asks for the GPU one" {
	for who in $WHO; do
		hostile "$who" "echo cuda nvcc /usr/local/cuda .cu; [ -e /dev/nvidiactl ] && exit 0; [ -e /sys/kernel ] && exit 0; exit 3"
		refused "$who"
		[ "$(get isolation.limits.memory)" = RLIMIT_AS ]
		[ "$(get isolation.dev)" = private ]
		run as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json --gpu
		[ "$status" -eq 0 ]
		[ "$(get isolation.limits.memory)" = RLIMIT_DATA ]
	done
}

# bytes of the files under a directory
bytes_in() { find "$1" -type f -printf '%s\n' | awk '{n += $1} END {print n + 0}'; }

@test "--cache-max caps a --cache DIR: the oldest entries go, with a line that says so" {
	for who in $WHO; do
		c=$(userdir "$who")/cache
		mkdir -p "$c/objects" "$c/harness-build"
		for i in 1 2 3 4; do
			head -c 1048576 /dev/zero >"$c/objects/o$i.so"
			touch -d "@$((1700000000 + i * 100))" "$c/objects/o$i.so"
		done
		head -c 1048576 /dev/zero >"$c/harness-build/ktraj-harness"
		touch -d @1700000250 "$c/harness-build"
		chmod -R a+rwX "$c"
		step "$who" "echo hello" "hello"
		run --separate-stderr as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json \
			--cache "$c" --cache-max 2621440
		echo "# $who: $status: $output / $stderr" >&3
		[ "$status" -eq 0 ]
		[ "$(get verdict)" = reproduced ]
		[ "$(get isolation.limits.cache_bytes)" = 2621440 ]
		# less the line an unprivileged user also gets: "no cgroup for the step"
		[ "$(nocg)" = "ktraj: replay: cache $c held 5242880 bytes, over --cache-max 2621440: removed its 3 oldest entries (3145728 bytes)" ]
		# oldest first: o1, o2, then harness-build (as a whole), not o3, o4
		[ "$(cd "$c" && find . -type f | sort | tr '\n' ' ')" = "./objects/o3.so ./objects/o4.so " ]
	done
}

@test "a step that fills the cache is stopped at --cache-max, and the cache is trimmed after it" {
	for who in $WHO; do
		c=$(userdir "$who")/cache
		mkdir -p "$c"
		chmod 777 "$c"
		step "$who" 'for i in $(seq 48); do head -c 1048576 /dev/zero >"$KTRAJ_CACHE/f$i" || exit 3; done; sleep 4; exit 0'
		run --separate-stderr as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json \
			--cache "$c" --cache-max 8388608
		echo "# $who: $status: $output / $stderr" >&3
		[ "$status" -eq 0 ]
		[ "$(get verdict)" = failed ]
		[[ "$(get reason)" == *"stopped: the step added more than --cache-max (8388608 bytes) to the cache"* ]]
		[[ "$(nocg)" == "ktraj: replay: cache $c held "*" bytes, over --cache-max 8388608: removed its "* ]]
		[ "$(bytes_in "$c")" -le 8388608 ]
	done
}

@test "no setuid or setgid program is left in a --cache DIR (chmod, install, open with the bits, a copy with its mode)" {
	for who in $WHO; do
		c=$(userdir "$who")/cache
		mkdir -p "$c"
		chmod 777 "$c"
		# each way must fail; the step then looks for a survivor itself
		step "$who" 'C=$KTRAJ_CACHE; cp /bin/true "$C/a"; chmod 4755 "$C/a"; chmod g+s "$C/a"
install -m 6755 /bin/true "$C/b"; cp -p /bin/true "$C/c"; chmod u+s "$C/c"
python3 -c "import os; os.close(os.open(\"$C/d\", os.O_CREAT | os.O_WRONLY, 0o4755))"
python3 -c "import os; os.chmod(\"$C/a\", 0o2755)"
mkdir "$C/e"; chmod 2777 "$C/e"
[ -n "$(find "$C" -perm /6000)" ] && exit 0; exit 3'
		run --separate-stderr as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json --cache "$c"
		echo "# $who: stderr: $stderr" >&3
		refused "$who"
		[ -z "$(find "$c" -perm /6000)" ]
		[ -f "$c/a" ] && [ -f "$c/b" ] || false
	done
}

@test "a setsid daemon does not outlive the replay" {
	dur=$((70000 + RANDOM))
	for who in $WHO; do
		hostile "$who" "setsid sh -c 'sleep $dur' </dev/null >/dev/null 2>&1 & exit 3"
		refused "$who"
		sleep 0.5
		! pgrep -f "sleep $dur" || false
	done
}

@test "the step cannot kill ktraj: the replay is still judged and recorded" {
	for who in $WHO; do
		hostile "$who" "pkill -9 -f ktraj; pkill -9 bwrap; kill -9 \$PPID; kill -9 -1; exit 3"
		echo "# $who: status $status: $output" >&3
		[ "$status" -eq 0 ]
		[ "$(get isolation.sandbox)" = bubblewrap ]
		[ "$(as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" log h --kind replay --json | wc -l)" -eq 1 ]
	done
}

@test "kill -9 of ktraj stops the step and leaves no temp dir behind" {
	dur=$((70000 + RANDOM))
	for who in $WHO; do
		step "$who" "sleep $dur; exit 0"
		as_bg "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json >"$D/bg.out" 2>&1 </dev/null 3>&-
		pid=$BG_PID
		for _ in $(seq 200); do pgrep -f "sleep $dur" >/dev/null && break; sleep 0.1; done
		pgrep -f "sleep $dur" >/dev/null
		kill -9 "$pid"
		wait "$pid" || true
		for _ in $(seq 50); do pgrep -f "sleep $dur" >/dev/null || break; sleep 0.1; done
		! pgrep -f "sleep $dur" || false
		# nothing of the bundle is left on the host's disk
		! grep -rlsF "sleep $dur" /tmp/ktraj-replay.* /var/tmp 2>/dev/null || false
	done
}

@test "kill -9 of ktraj replay --all-bench leaves no cache directory behind" {
	for who in $WHO; do
		dir=$(userdir "$who")
		mkdir -p "$dir/tmp"
		[ "$who" = me ] || chown "$who" "$dir/tmp"
		cp "$BATS_TEST_DIRNAME/../data/replay/cc_bench_session.jsonl" "$dir/"
		chmod 644 "$dir/cc_bench_session.jsonl"
		as "$who" env KTRAJ_STORE="$dir/s.ktraj" "$D/ktraj" import "$dir/cc_bench_session.jsonl" >/dev/null
		R=$(as "$who" env KTRAJ_STORE="$dir/s.ktraj" "$D/ktraj" ls --json |
			"$PY" -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
		as_bg "$who" env TMPDIR="$dir/tmp" KTRAJ_STORE="$dir/s.ktraj" "$D/ktraj" replay "$R" --all-bench \
			>"$D/bg.out" 2>&1 </dev/null 3>&-
		pid=$BG_PID
		for _ in $(seq 200); do ls "$dir/tmp" | grep -q ktraj-cache && break; sleep 0.05; done
		ls "$dir/tmp" | grep -q ktraj-cache
		kill -9 "$pid"
		wait "$pid" || true
		for _ in $(seq 50); do ls "$dir/tmp" | grep -q ktraj-cache || break; sleep 0.1; done
		[ -z "$(ls "$dir/tmp")" ]
	done
}

@test "the watchdog kills the whole sandbox at the timeout, a setsid daemon with it" {
	dur=$((70000 + RANDOM))
	for who in $WHO; do
		step "$who" "setsid sh -c 'sleep $dur' </dev/null >/dev/null 2>&1 & sleep $dur; exit 0"
		as "$who" env KTRAJ_STORE="$D/$who/s.ktraj" "$D/ktraj" replay h 1 --json --timeout 15 \
			>"$D/bg.out" 2>&1 </dev/null 3>&- &
		pid=$!
		# the command itself ran (the bundle's C build comes first)
		for _ in $(seq 150); do [ "$(pgrep -fc "sleep $dur")" -ge 2 ] && break; sleep 0.1; done
		[ "$(pgrep -fc "sleep $dur")" -ge 2 ]
		wait "$pid"
		output=$(cat "$D/bg.out")
		echo "# $who: $output" >&3
		[ "$(get verdict)" = failed ]
		[[ "$(get reason)" == *watchdog* ]]
		sleep 0.5
		! pgrep -f "sleep $dur" || false
	done
}

@test "no descriptor of ktraj (the store's files, its pipes) reaches the step" {
	refused_by_all '[ $(ls /proc/self/fd | wc -l) -le 4 ] && exit 3; ls -l /proc/self/fd; exit 0'
}

@test "a sandbox that cannot start is an error, not a failed step, and nothing is recorded" {
	mkdir -p "$D/fake"
	printf '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' >"$D/fake/bwrap"
	chmod 755 "$D/fake/bwrap"
	step me "echo hello" "hello"
	run env PATH="$D/fake:$PATH" KTRAJ_STORE="$D/me/s.ktraj" "$D/ktraj" replay h 1 --json
	[ "$status" -eq 1 ]
	[ "$output" = "ktraj: replay: the sandbox did not start: bwrap: setting up uid map: Permission denied" ]
	[ "$(KTRAJ_STORE="$D/me/s.ktraj" "$D/ktraj" log h --kind replay --json | wc -l)" -eq 0 ]
}

@test "without bubblewrap, replay refuses with the install line; --no-sandbox runs and says so" {
	step me "echo hello" "hello"
	run env PATH=/nonexistent KTRAJ_STORE="$D/me/s.ktraj" "$D/ktraj" replay h 1 --json
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ktraj: replay: "*"apt-get install bubblewrap"* ]]
	[ "$(KTRAJ_STORE="$D/me/s.ktraj" "$D/ktraj" log h --kind replay --json | wc -l)" -eq 0 ]
	run env KTRAJ_STORE="$D/me/s.ktraj" "$D/ktraj" replay h 1 --json --no-sandbox
	[ "$status" -eq 0 ]
	[ "$(get verdict)" = reproduced ]
	[ "$(get isolation.sandbox)" = none ]
	[ "$(get network_isolated)" = false ]
}
