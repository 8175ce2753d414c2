#!/usr/bin/env bats
# `ktraj report`: the HTML a researcher would put in an appendix, checked in
# the file and as headless Chromium renders it (--dump-dom after the page's
# own script ran, --screenshot): one chart per series, jump markers in two
# colours (after a question / by the agent alone), question markers, a
# timeline row per event as `log` shows it, the search box, trajectory text
# escaped, and nothing fetched.  The Chromium tests skip when chromium is
# absent (CI installs it); the corpus test skips without $CORPUS.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	CORPUS=${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}
	FX="$BATS_TEST_TMPDIR/fx.jsonl"
	python3 "$BATS_TEST_DIRNAME/report_fixture.py" "$FX"
	"$KTRAJ" import "$FX" >/dev/null
}

# render FILE.html OUT.dom: the DOM after load, at a 1400 px wide window.
# A copy of the page gets a probe script that records, per chart, its width
# as a share of the window and whether every jump label lies inside the
# chart's viewBox (getBBox), as data- attributes the DOM dump carries.
render() {
	command -v chromium >/dev/null || skip "chromium not installed"
	local probe="$BATS_TEST_TMPDIR/probe.html"
	python3 - "$1" "$probe" <<'PY'
import sys
h = open(sys.argv[1]).read()
js = """<script>document.querySelectorAll('svg.chart').forEach(function(s){
var vb=s.viewBox.baseVal,fit=1;s.querySelectorAll('.jump text').forEach(function(t){
var b=t.getBBox();if(b.x<0||b.y<0||b.x+b.width>vb.width||b.y+b.height>vb.height)fit=0;});
s.setAttribute('data-fit',fit);
s.setAttribute('data-frac',(s.getBoundingClientRect().width/window.innerWidth).toFixed(3));});
</script>"""
i = h.rindex("</body>")
open(sys.argv[2], "w").write(h[:i] + js + h[i:])
PY
	headless --dump-dom "file://$probe" >"$2"
	[ -s "$2" ]
}

# headless ARGS...: Chromium at a 1400x900 window, offline, a fresh profile
headless() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$(mktemp -d "$BATS_TEST_TMPDIR/chr.XXXX")" \
		--window-size=1400,900 "$@" 2>/dev/null || true
}

# check RUN NCHARTS: report RUN, render it, compare with blame and log
# (PYCHECK below); prints "charts jump-markers question-markers rows"
check() {
	"$KTRAJ" report "$1" -o "$BATS_TEST_TMPDIR/$1.html" >/dev/null
	render "$BATS_TEST_TMPDIR/$1.html" "$BATS_TEST_TMPDIR/$1.dom"
	"$KTRAJ" blame speedup "$1" --json >"$BATS_TEST_TMPDIR/$1.json"
	python3 -c "$PYCHECK" "$BATS_TEST_TMPDIR/$1.dom" "$2" "$BATS_TEST_TMPDIR/$1.json" \
		"$("$KTRAJ" log "$1" | wc -l)"
}

# The checks every rendered report passes: DOM $1, expected charts $2,
# jumps $3 (JSON rows of `blame speedup --json`), events $4.
PYCHECK='
import json, sys
from html.parser import HTMLParser
dom, ncharts, blame, nev = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.el = []; s.text = []; s.stack = []
    def handle_starttag(s, t, a):
        s.el.append((t, dict(a)))
    def handle_data(s, d):
        s.text.append(d)
p = P(); p.feed(open(dom).read())
def cls(a): return (a.get("class") or "").split()
charts = [a for t, a in p.el if t == "svg" and "chart" in cls(a)]
jumps = [a for t, a in p.el if t == "a" and "jump" in cls(a)]
qm = [a for t, a in p.el if t == "a" and "qm" in cls(a)]
rows = [a for t, a in p.el if t == "tr" and (a.get("id") or "").startswith("e")]
rows_q = [a for a in rows if "q" in cls(a)]
bl = [json.loads(l) for l in open(blame) if l.strip()]
jr = [r for r in bl if "gain" in r]
assert len(charts) == ncharts, ("charts", len(charts), ncharts)
assert len(jumps) == len(jr), ("jump markers", len(jumps), len(jr))
# a marker per jump, coloured by who made it; the table row says the same
for a, r in zip(jumps, jr):
    want = "ja" if r["attribution"] == "agent alone" else "jq"
    assert want in cls(a), (a, r["attribution"])
assert len({a["class"] for a in jumps}) == len({("ja" if r["attribution"] == "agent alone" else "jq") for r in jr})
# question markers point at timeline rows marked as questions
assert {a["href"][1:] for a in qm} <= {a["id"] for a in rows_q}, (qm, rows_q)
assert len(rows) == nev, ("timeline rows", len(rows), nev)
assert len({a["id"] for a in rows}) == nev
# the search box, enabled by the page script (it ran without an error)
box = [a for t, a in p.el if t == "input" and a.get("id") == "find"]
assert len(box) == 1 and box[0].get("type") == "search" and "disabled" not in box[0], box
# nothing leaves the file: no src, no link/img/iframe/object, every href an anchor
for t, a in p.el:
    assert t not in ("img", "iframe", "link", "object", "embed", "audio", "video", "image", "use"), t
    assert "src" not in a, (t, a)
    if "href" in a:
        assert a["href"].startswith("#"), (t, a)
# the charts fill the window: one alone about all of it, side by side more than 80 % together
fr = [float(a["data-frac"]) for a in charts]
assert (fr[0] > 0.9 if ncharts == 1 else sum(fr[:2]) > 0.8 and all(f > 0.35 for f in fr)), fr
assert all(a["data-fit"] == "1" for a in charts), "a jump label crosses the chart edge"
print(len(charts), len(jumps), len(qm), len(rows))
'

@test "report of the fixture run: escaped text, log's timeline, failed build, diffs, one script" {
	run "$KTRAJ" report fx -o "$BATS_TEST_TMPDIR/r.html"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(2 jumps,"*" 20 events)"* ]]
	python3 - "$BATS_TEST_TMPDIR/r.html" <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
# the hostile message is text: escaped, its controls gone, only our script
assert h.count("<script") == 1 and h.count("</script>") == 1, h.count("<script")
assert "<img" not in h and "onerror=\"document" not in h
assert "&lt;/script&gt;&lt;script&gt;document.title=&#39;pwned&#39;" in h
assert "&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;" in h
assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", h), "a control character"
row = lambda s: re.search(r'<tr id="e%d"[^>]*>(.*?)</tr>' % s, h).group(0)
# the timeline shows what log shows: the command, the failed result and build
assert "Bash nvcc -O3 -o k k.cu" in row(2)
assert 'class="k-tool_result fail"' in row(3) and "exit 1" in row(3) and "expected a" in row(3)
assert 'class="k-compile fail"' in row(4) and "build FAILED, exit 1" in row(4) and "nvcc -O3" in row(4)
assert "speedup 2x" in row(13) and "correct" in row(13)
assert 'class="k-message q"' in row(10)
# J1 after the question (#10), J2 by the agent alone; each row links its
# question and edits and carries the diff of its edits
j1 = re.search(r'<tr id="jump1" class="jq" data-rel="e10 e12">.*?</tr>', h, re.S).group(0)
j2 = re.search(r'<tr id="jump2" class="ja" data-rel="e18">.*?</tr>', h, re.S).group(0)
assert 'href="#e10">Q #10' in j1 and 'href="#e12">#12' in j1 and "agent alone" in j2
assert "-__global__ void k(float *x)\n+__global__ void k(float4 *x)" in j1
assert "+// unrolled" in j2
PY
}

@test "report renders in headless Chromium: one chart, 2 jumps in two colours, a row per event, search box, nothing fetched" {
	command -v chromium >/dev/null || skip "chromium not installed"
	run check fx 1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "1 2 1 20" ]
	# the hostile message ran nothing: the title is still ours
	grep -q '<title>ktraj report: fx</title>' "$BATS_TEST_TMPDIR/fx.dom"
	run grep -c pwned'</title>' "$BATS_TEST_TMPDIR/fx.dom"
	[ "$output" = 0 ]
	headless --screenshot="$BATS_TEST_TMPDIR/r.png" "file://$BATS_TEST_TMPDIR/fx.html" >/dev/null
	python3 - "$BATS_TEST_TMPDIR/r.png" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", d[16:24]) == (1400, 900)
PY
}

@test "report of several series renders as small multiples side by side in Chromium" {
	command -v chromium >/dev/null || skip "chromium not installed"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/wl_jumps.jsonl" >/dev/null
	run check wl_jumps 2
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "2 2 2 26" ]
}

@test "report of a real run renders in Chromium (corpus: kernelagent)" {
	command -v chromium >/dev/null || skip "chromium not installed"
	[ -d "$CORPUS/gpu_kernel/kernelagent/opt_trace_04_MatVec" ] || skip "no corpus"
	"$KTRAJ" import "$CORPUS/gpu_kernel/kernelagent/opt_trace_04_MatVec" >/dev/null
	# one series; its 2 jumps are the agent's own (blame speedup says so)
	run check opt_trace_04_MatVec 1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "1 2 0 80" ]
}

@test "a jump's diff labels an absolute path as git and ktraj diff do: a/home/..., never a//home/..." {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	"$KTRAJ" report 3db8 -o "$BATS_TEST_TMPDIR/s.html"
	grep -q -- '--- a/home/dev/softmax/softmax.cu' "$BATS_TEST_TMPDIR/s.html"
	grep -q -- '+++ b/home/dev/softmax/softmax.cu' "$BATS_TEST_TMPDIR/s.html"
	! grep -q -- '[ab]//home' "$BATS_TEST_TMPDIR/s.html" || false
	# the same labels as `ktraj diff` of the same edit
	"$KTRAJ" diff 3db8 26 34 | grep -q -- '^--- a/home/dev/softmax/softmax.cu$'
}
