#!/usr/bin/env bats
# ATIF v1.6+ image content parts and a step's token ids and logprobs are
# kept, and `export --format atif` gives them back.  Our own fixture,
# written from Harbor's trajectory models (content.py: ContentPart
# {type, text?, source?: {media_type, path}}; metrics.py: prompt_token_ids,
# completion_token_ids, logprobs, extra), with an image file beside the
# trajectory, a data: URL, a remote URL, and one step whose prompt ids are
# over the 64 KiB kept inline (a blob).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_TMPDIR/run"
	mkdir -p "$D/images"
	python3 - "$D" <<-'PY'
	import base64, json, struct, sys, zlib
	d = sys.argv[1]
	def png(w, h, rgb):
	    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
	    def ch(t, b):
	        return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))
	    return (b"\x89PNG\r\n\x1a\n" + ch(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
	            + ch(b"IDAT", zlib.compress(raw)) + ch(b"IEND", b""))
	a, b = png(2, 2, (255, 0, 0)), png(3, 1, (0, 0, 255))
	open(d + "/images/roofline.png", "wb").write(a)
	open(d + "/../b.png", "wb").write(b)
	doc = {"schema_version": "ATIF-v1.7", "session_id": "media-1",
	 "agent": {"name": "terminus-2", "version": "2.0", "model_name": "m"},
	 "steps": [
	  {"step_id": 1, "source": "user", "message": [
	     {"type": "text", "text": "why is this slow?"},
	     {"type": "image", "source": {"media_type": "image/png", "path": "images/roofline.png"}}]},
	  {"step_id": 2, "source": "agent", "message": "profiling",
	   "tool_calls": [{"tool_call_id": "c1", "function_name": "screenshot", "arguments": {}}],
	   "metrics": {"prompt_tokens": 12, "completion_tokens": 3, "prompt_token_ids": [1, 2, 3],
	               "completion_token_ids": [7, 8, 9], "logprobs": [-0.1, -0.25, -1.5],
	               "extra": {"temperature": 0.7}},
	   "observation": {"results": [{"source_call_id": "c1", "content": [
	     {"type": "text", "text": "captured"},
	     {"type": "image", "source": {"media_type": "image/png",
	      "path": "data:image/png;base64," + base64.b64encode(b).decode()}},
	     {"type": "image", "source": {"media_type": "image/jpeg", "path": "https://example.com/x.jpg"}},
	     {"type": "image", "source": {"media_type": "image/png", "path": "images/gone.png"}}]}]}},
	  {"step_id": 3, "source": "agent", "message": "done",
	   "metrics": {"prompt_tokens": 20, "completion_tokens": 1, "prompt_token_ids": list(range(20000)),
	               "completion_token_ids": [5], "logprobs": [-0.5]}}]}
	json.dump(doc, open(d + "/trajectory.json", "w"))
	PY
}

# the run's events as JSON lines, blob lines left out; blobs in $B/blobs.json
events() {
	"$KTRAJ" export "$1" | python3 -c '
import json, sys
blobs = {}
for l in sys.stdin:
    e = json.loads(l)
    if "blob" in e and "kind" not in e:
        blobs[e["blob"]] = e.get("base64") or e.get("text")
    elif "kind" in e:
        print(json.dumps(e))
json.dump(blobs, open(sys.argv[1], "w"))' "$BATS_TEST_TMPDIR/blobs.json"
}

@test "atif: image parts become blobs on the message and the result, token ids and logprobs the step's extra" {
	run --separate-stderr "$KTRAJ" import "$D"
	[ "$status" -eq 0 ]
	# the one image that is not there is said once, the import goes on
	[[ "$stderr" == *"image images/gone.png not found beside the trajectory: its reference is kept without its content"* ]]
	[[ "$output" == *" 5 events "* ]]
	# the image file is claimed by the trajectory, not reported as unknown
	[[ "$stderr" != *"roofline.png"* ]]
	events media-1 >"$BATS_TEST_TMPDIR/ev.jsonl"
	python3 - "$BATS_TEST_TMPDIR" "$D" <<-'PY'
	import base64, hashlib, json, sys
	t, d = sys.argv[1:3]
	ev = [json.loads(l) for l in open(t + "/ev.jsonl")]
	blobs = json.load(open(t + "/blobs.json"))
	p = [e["payload"] for e in ev]
	a = open(d + "/images/roofline.png", "rb").read()
	b = open(d + "/../b.png", "rb").read()
	assert p[0]["text"] == "why is this slow?" and p[0]["human"] is True
	assert p[0]["images"] == [{"blob": hashlib.sha256(a).hexdigest(), "media_type": "image/png",
	                           "path": "images/roofline.png"}], p[0]
	assert base64.b64decode(blobs[hashlib.sha256(a).hexdigest()]) == a
	r = [x for x in p if "call_id" in x and "ok" in x][0]
	assert r["output"] == "captured"
	assert r["images"][0] == {"blob": hashlib.sha256(b).hexdigest(), "media_type": "image/png"}, r
	assert r["images"][1] == {"media_type": "image/jpeg", "path": "https://example.com/x.jpg"}
	assert r["images"][2] == {"media_type": "image/png", "path": "images/gone.png"}
	assert p[1]["extra"]["tokens"] == {"prompt_token_ids": [1, 2, 3], "completion_token_ids": [7, 8, 9],
	                                    "logprobs": [-0.1, -0.25, -1.5]}, p[1]
	assert p[1]["extra"]["metrics_extra"] == {"temperature": 0.7}
	# 20,000 prompt ids are over the 64 KiB inline bound: a blob
	x = p[4]["extra"]
	assert "tokens" not in x
	assert json.loads(blobs[x["tokens_blob"]])["prompt_token_ids"] == list(range(20000))
	PY
}

@test "atif: export --format atif gives the images and tokens back, and its import keeps the same blobs" {
	"$KTRAJ" import "$D" >/dev/null 2>&1 || true
	"$KTRAJ" export media-1 --format atif -o "$BATS_TEST_TMPDIR/out.json"
	python3 - "$BATS_TEST_TMPDIR/out.json" "$D" <<-'PY'
	import base64, json, sys
	doc = json.load(open(sys.argv[1]))
	a = open(sys.argv[2] + "/images/roofline.png", "rb").read()
	# ContentPart lists exist from v1.6 on
	assert doc["schema_version"] == "ATIF-v1.6"
	s = doc["steps"]
	m = s[0]["message"]
	assert m[0] == {"type": "text", "text": "why is this slow?"}
	assert m[1]["type"] == "image" and m[1]["source"]["media_type"] == "image/png"
	url = m[1]["source"]["path"]
	assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == a
	c = s[1]["observation"]["results"][0]["content"]
	assert [x["type"] for x in c] == ["text", "image", "image", "image"]
	assert c[2]["source"] == {"media_type": "image/jpeg", "path": "https://example.com/x.jpg"}
	mt = s[1]["metrics"]
	assert mt["prompt_token_ids"] == [1, 2, 3] and mt["completion_token_ids"] == [7, 8, 9]
	assert mt["logprobs"] == [-0.1, -0.25, -1.5] and mt["extra"] == {"temperature": 0.7}
	assert s[2]["metrics"]["prompt_token_ids"] == list(range(20000))
	PY
	# round trip: the export imported again has the same images and tokens
	mkdir "$BATS_TEST_TMPDIR/rt"
	cp "$BATS_TEST_TMPDIR/out.json" "$BATS_TEST_TMPDIR/rt/trajectory.json"
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s2.ktraj"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/rt" >/dev/null
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	events "$r" >"$BATS_TEST_TMPDIR/ev2.jsonl"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj" events media-1 >"$BATS_TEST_TMPDIR/ev1.jsonl"
	python3 - "$BATS_TEST_TMPDIR" <<-'PY'
	import json, sys
	t = sys.argv[1]
	def load(n):
	    return [json.loads(l)["payload"] for l in open("%s/%s" % (t, n))]
	one, two = load("ev1.jsonl"), load("ev2.jsonl")
	assert len(one) == len(two) == 5
	strip = lambda imgs: [{k: v for k, v in i.items() if k != "path" or "blob" not in i} for i in imgs]
	for x, y in zip(one, two):
	    assert strip(x.get("images", [])) == y.get("images", []), (x, y)
	    for k in ("tokens", "tokens_blob", "metrics_extra"):
	        assert x.get("extra", {}).get(k) == y.get("extra", {}).get(k), (k, x, y)
	PY
}

@test "atif: the corpus v1.7 run round-trips through export --format atif with its messages, calls and results" {
	C=${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}/gpu_kernel/harbor_kernelbench/gpt55_s2_quant_w4a16
	[ -f "$C/trajectory.json" ] || skip "corpus not present"
	"$KTRAJ" import "$C/trajectory.json" >/dev/null
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" export "$r" --format atif -o "$BATS_TEST_TMPDIR/c.json"
	mkdir "$BATS_TEST_TMPDIR/c"
	cp "$BATS_TEST_TMPDIR/c.json" "$BATS_TEST_TMPDIR/c/trajectory.json"
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s2.ktraj"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/c" >/dev/null
	r2=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	count() {
		"$KTRAJ" export "$1" | python3 -c '
import collections, json, sys
c = collections.Counter(json.loads(l).get("kind") for l in sys.stdin)
print(c["message"], c["tool_call"], c["tool_result"])'
	}
	one=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj" count "$r")
	two=$(count "$r2")
	# raw file: 5 steps, 4 with tool calls and observations; no image
	# parts and no token ids in it, so the export stays v1.5
	[ "$one" = "$two" ]
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["schema_version"] == "ATIF-v1.5"' "$BATS_TEST_TMPDIR/c.json"
}
