#!/usr/bin/env bats
# ATIF: what a document says beyond its steps is kept in the run's meta
# (v1.6's continued_trajectory_ref, members of later versions), and a
# step's members ATIF does not define in the event's extra, so nothing a
# v1.7 writer adds is lost.  Our own fixture, written from RFC 0001.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	cat >"$BATS_TEST_TMPDIR/t.trajectory.json" <<-'JSON'
	{"schema_version": "ATIF-v1.7", "session_id": "keep-1",
	 "agent": {"name": "terminus-2", "version": "2.0", "model_name": "m"},
	 "continued_trajectory_ref": "t.cont-1.trajectory.json",
	 "future_member": {"a": 1},
	 "steps": [
	  {"step_id": 1, "source": "user", "message": "make it fast"},
	  {"step_id": 2, "source": "agent", "message": "ok", "llm_call_count": 2,
	   "metrics": {"prompt_tokens": 10, "completion_tokens": 2}}],
	 "final_metrics": {"total_steps": 2}}
	JSON
}

@test "atif: document members beyond the steps go to the run's meta, unknown step members to extra" {
	"$KTRAJ" import "$BATS_TEST_TMPDIR/t.trajectory.json" >/dev/null
	run "$KTRAJ" ls --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
m = json.loads(sys.argv[1])["meta"]
assert m["continued_trajectory_ref"] == "t.cont-1.trajectory.json", m
assert m["future_member"] == {"a": 1}, m
assert m["schema_version"] == "ATIF-v1.7" and m["final_metrics"] == {"total_steps": 2}
assert "steps" not in m' "$output"
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" export "$r" | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
ex = [e["payload"].get("extra", {}) for e in ev if e.get("kind") == "message"]
assert any(x.get("llm_call_count") == 2 for x in ex), ex'
}
