#!/usr/bin/env python3
"""gen.py - a second planted-session generator, written apart from tests/plant.

It shares no code, vocabulary or format with tests/plant: sessions are Claude
Code transcripts (the JSONL that Claude Code writes under ~/.claude/projects:
user / assistant records linked by parentUuid, tool_use / tool_result blocks,
Edit and Bash tools), and every benchmark number reaches ktraj only through the
free text a benchmark program prints.  What is planted is written beside the
sessions in truth.json.

A session: one to three workloads (each its own benchmark command and output
format), each with a kernel file.  The agent edits, runs, reads.  Planted
jumps (true gain >= x1.35) are caused by
  - a person's question (English or Chinese; echoed by the agent's reply, or
    answered in other words so only lag and layer tie them), or
  - the agent alone (its own plan, sometimes after an unrelated decoy
    question by the person).
Between jumps: tuning edits with no real effect, regressions then reverts to
earlier code (same text again), re-runs of unchanged code, decoy questions
(courtesy, logistics), instructions that are not questions, pasted logs with
question marks, agent self-questions, torch.compile autotune logs before a
result, outputs with a correctness column where a fast row is wrong.

Noise: true kernel and reference times get independent lognormal noise of SD
--noise (log scale) on every run.

Output formats (per workload): plain lines, a markdown table with a
correctness column, triton.testing.do_bench prints, a triton perf_report
table (GB/s; the agent writes the script, whose Benchmark's ylabel is the
only place the unit is said; the script checks the result first and prints
the triton tutorials' "Triton and Torch match/differ"), a verifier JSON with two baselines (eager and torch.compile,
the compile one graded), and a torch.compile max-autotune log before a line.

Usage: gen.py OUTDIR [--sessions N] [--noise S] [--seed N] [--lang en|zh|mix]
                     [--null] [--pure] [--qjumps K]
  --null   questions are placed at random positions, independent of jumps
           (jumps are the agent's own): the null of the run test.
  --pure   no jump at all: pure noise around one level.
  --qjumps every session gets exactly K question-caused jumps (power).
Deterministic for the same arguments.
"""
import argparse, json, math, os, random, uuid

Q = {  # layer -> list of (english, chinese, reply_echo_en, reply_echo_zh, reply_other, plan, code)
 "memory": [
  ("Is the inner tile actually staged in shared memory, or does every warp go back to global memory for B?",
   "B矩阵的分块真的放进共享内存了吗，还是每个warp都回全局内存读？",
   "Good point: every warp re-reads B from global memory. Staging the B tile in shared memory.",
   "确实，每个warp都回全局内存读B。把B的分块放进共享内存。",
   "Let me restructure the loads so one block cooperatively fills a buffer once per K step.",
   "__shared__ float Bs[TILE_K][TILE_N + 1];\nBs[ty][tx] = B[(k0 + ty) * N + col];\n__syncthreads();"),
  ("Why are the loads scalar when the rows are 16-byte aligned?",
   "行是16字节对齐的，为什么还用标量加载？",
   "The rows are 16-byte aligned, so the scalar loads can become vector loads (float4).",
   "行确实16字节对齐，标量加载改成float4向量加载。",
   "I'll widen each thread's access so fewer transactions are issued per row.",
   "float4 v = *reinterpret_cast<const float4*>(&x[row * D + 4 * lane]);"),
 ],
 "fusion": [
  ("Why does the residual add run as its own launch after the matmul?",
   "残差相加为什么在矩阵乘之后单独启动一个kernel？",
   "The residual add is its own launch after the matmul; folding it into the matmul epilogue.",
   "残差相加确实单独启动，把它并进矩阵乘的收尾阶段。",
   "Going to merge the trailing elementwise work into the kernel that produced the tensor.",
   "acc = acc + residual[row * N + col]; // epilogue\nC[row * N + col] = acc;"),
  ("Could the layernorm and the quantize step share one pass over the row?",
   "layernorm和量化能不能在同一遍里完成？",
   "Yes, layernorm and quantize can share one pass over the row; merging them.",
   "可以，layernorm和量化放在同一遍里完成。",
   "I will compute the statistics and the scaled output in a single sweep.",
   "float mu = warp_sum(s) / D; float q = rintf((v - mu) * rstd / scale);"),
 ],
 "algorithm": [
  ("Does each thread still produce a single output, what about a 4x4 register tile per thread?",
   "每个线程是不是还只算一个输出？试过每个线程4x4的寄存器分块吗？",
   "Each thread still produces a single output; moving to a 4x4 register tile per thread.",
   "每个线程确实只算一个输出，改成每个线程4x4寄存器分块。",
   "Next I will give every thread a small block of outputs held in registers.",
   "float c[4][4] = {0};\nfor (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) c[i][j] += a[i] * b[j];"),
  ("Why two passes over the scores, can the max and the sum be kept online?",
   "为什么要对分数做两遍，最大值和求和不能在线维护吗？",
   "The two passes can go: keeping the max and the sum online in one pass.",
   "确实不需要两遍，最大值和求和在线维护，一遍完成。",
   "A single sweep with a running rescale should replace the separate reduction.",
   "float m2 = fmaxf(m, s); l = l * __expf(m - m2) + __expf(s - m2); m = m2;"),
 ],
 "compiler": [
  ("Have you looked at the SASS, does the K loop get unrolled at all?",
   "看过SASS吗？K循环到底有没有展开？",
   "Checked the SASS: the K loop is not unrolled. Adding #pragma unroll to the K loop.",
   "看了SASS，K循环确实没有展开，加上#pragma unroll。",
   "Let me make the trip count a template constant so the body can be expanded.",
   "template <int BK>\n#pragma unroll\nfor (int kk = 0; kk < BK; ++kk) acc += As[kk] * Bs[kk];"),
  ("Are you sure the kernel does not spill, what does ptxas report?",
   "你确定没有寄存器溢出吗？ptxas怎么说？",
   "ptxas reports 96 bytes of spill stores, so the kernel does spill; capping registers with launch bounds.",
   "ptxas显示有寄存器溢出，用launch bounds限制寄存器。",
   "I'll constrain the launch configuration so local memory traffic disappears.",
   "__launch_bounds__(256, 2)\n__global__ void kern(const float* __restrict__ x)"),
 ],
 "sync": [
  ("Is the barrier inside the k loop needed on every iteration?",
   "k循环里的屏障每次迭代都需要吗？",
   "The barrier inside the k loop is not needed on every iteration; double buffering lets one barrier per stage go.",
   "k循环里的屏障确实不需要每次都有，用双缓冲去掉一半屏障。",
   "Will rework the staging so threads wait less often.",
   "int stage = k & 1; // two buffers, one wait per tile\n__syncthreads();"),
  ("Why does every thread do an atomicAdd on the same counter?",
   "为什么每个线程都对同一个计数器做atomicAdd？",
   "Every thread does an atomicAdd on the same counter; reducing in the warp first, one atomicAdd per warp.",
   "每个线程确实都对同一个计数器做atomicAdd，先在warp内归约。",
   "Plan: collapse partial results inside each group before touching global state.",
   "for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\nif (lane == 0) atomicAdd(out, v);"),
 ],
}
SELF_PLANS = [
 ("Looking at the numbers, the grid is far too small to fill the GPU; I'll split K across blocks.",
  "int kchunk = (K + splits - 1) / splits; // split-K over blockIdx.z"),
 ("The tail loop handles the remainder element by element; I am going to pad the problem to the tile size instead.",
  "int Np = (N + 127) / 128 * 128; // padded"),
 ("My guess is that the index arithmetic dominates; precomputing row offsets once per block.",
  "const int rowoff = blockIdx.y * BM * ldA; // hoisted"),
 ("I'll switch the accumulation to tensor cores through wmma fragments.",
  "wmma::mma_sync(cf, af, bf, cf);"),
 ("Persistent blocks should amortize the launch: each block loops over tiles.",
  "for (int t = blockIdx.x; t < ntiles; t += gridDim.x) { process(t); }"),
]
TUNES = [("Trying a block of 128 threads.", "constexpr int THREADS = 128;"),
         ("Trying a block of 256 threads.", "constexpr int THREADS = 256;"),
         ("Changing the tile width to 64.", "constexpr int TW = 64;"),
         ("Changing the tile width to 32.", "constexpr int TW = 32;"),
         ("Renaming a few variables for clarity.", "// idx renamed"),
         ("Small cleanup of the bounds check.", "if (col >= N) return; // bounds")]
DECOYS_EN = ["How long does the whole benchmark take to run?", "Which GPU is this machine using, is it the H100?",
             "Did you push the branch yet?", "What time is the sync meeting tomorrow?",
             "Can you remind me where the results folder is?"]
DECOYS_ZH = ["整个benchmark跑一遍要多久？", "这台机器是哪块GPU？", "分支推上去了吗？"]
INSTR_EN = ["Please keep the old kernel around as a fallback.", "Run the benchmark again after each change.",
            "Use bf16 inputs from now on.", "Commit after every improvement.", "Don't touch the test harness."]
INSTR_ZH = ["每次改完都重新跑一下benchmark。", "保留旧的kernel作为备份。"]
SELFQ = ["Why is this slower than expected? Let me check the launch configuration.",
         "What would happen with a larger tile? Probably more register pressure.",
         "Is the reference using cuBLAS here? It seems so from the timing."]
PASTED = ["I saw this on the other box:\nRuntimeError: shape mismatch? expected (64, 128) got (128, 64)\n    at line 42",
          "FYI the log said: `warning: variable 'tmp' set but not used` ??"]
WORKLOADS = [("softmax", "python bench_softmax.py", "softmax.cu"),
             ("gemm", "./build/bench_gemm", "gemm.cu"),
             ("layernorm", "python verify.py --problem layernorm", "layernorm.py"),
             ("attention", "python -m bench.attn", "attn.cu"),
             ("rmsnorm", "python bench_rmsnorm.py", "rmsnorm.py")]
FORMATS = ["lines", "table", "dobench", "verifier", "autotune", "perfreport"]


def fmt_output(r, fmt, wl, t, ref, correct):
    """The text a benchmark prints for kernel time t and reference ref (ms)."""
    if fmt == "lines":
        s = "Running %s benchmark (warmup 25, rep 100)\n" % wl
        s += "kernel time: %.4f ms\nreference time: %.4f ms\nspeedup: %.2fx\n" % (t, ref, ref / t)
        return s + ("PASSED\n" if correct else "FAILED: max abs diff 0.37\n")
    if fmt == "table":
        rows = ["| shape | ours (ms) | torch (ms) | speedup | correct |", "|---|---|---|---|---|"]
        rows.append("| 4096x4096 | %.4f | %.4f | %.2f | %s |" % (t, ref, ref / t, "yes" if correct else "NO"))
        return "\n".join(rows) + "\n"
    if fmt == "dobench":
        return "max abs err: %s\ntriton: %.4f ms\ntorch: %.4f ms\n" % (
            "1.2e-06" if correct else "3.1e-01 (mismatch)", t, ref)
    if fmt == "verifier":
        d = {"problem": wl, "correct": bool(correct), "kernel_ms": round(t, 5),
             "eager_ms": round(ref * 2.7, 5), "compile_ms": round(ref, 5),
             "speedup_vs_eager": round(ref * 2.7 / t, 4), "speedup_vs_compile": round(ref / t, 4),
             "graded": "speedup_vs_compile"}
        return json.dumps(d) + "\n"
    if fmt == "autotune":
        s = "AUTOTUNE mm(4096x4096, 4096x4096)\n"
        for k, f in enumerate([1.0, 1.07, 1.2]):
            s += "  triton_mm_%d %.4f ms %.1f%%\n" % (3 * k + 2, ref * 0.9 * f, 100 / f)
        s += "SingleProcess AUTOTUNE benchmarking takes 1.8 seconds\n"
        s += "custom kernel: %.4f ms | compiled baseline: %.4f ms | %s\n" % (t, ref, "PASS" if correct else "FAIL")
        return s
    if fmt == "perfreport":
        gb = 512.0 / t  # bytes moved fixed: GB/s proportional to 1/t
        gr = 512.0 / ref
        # the check the triton tutorials print before their perf_report
        ok = "\u2705 Triton and Torch match\n" if correct else "\u274c Triton and Torch differ\n"
        return ok + ("%s-performance:\n        N      Triton       Torch\n0  4096.0  %.6f  %.6f\n" % (wl, gb, gr))
    raise ValueError(fmt)


def perf_script_path(cmd, wl):
    for tok in cmd.split():
        if tok.endswith(".py"):
            return tok
    if " -m " in cmd:
        return cmd.split(" -m ")[1].split()[0].replace(".", "/") + ".py"
    return "bench_%s.py" % wl


def perf_script(wl):
    """A triton tutorial-style benchmark script (triton.testing.perf_report)."""
    return ("import torch\nimport triton\nfrom kern import %s as kernel\n\n\n"
            "@triton.testing.perf_report(\n    triton.testing.Benchmark(\n"
            "        x_names=['N'],\n        x_vals=[4096],\n        line_arg='provider',\n"
            "        line_vals=['triton', 'torch'],\n        line_names=['Triton', 'Torch'],\n"
            "        styles=[('blue', '-'), ('green', '-')],\n        ylabel='GB/s',\n"
            "        plot_name='%s-performance',\n        args={'M': 4096},\n    ))\n"
            "def benchmark(M, N, provider):\n    x = torch.randn(M, N, device='cuda')\n"
            "    fn = (lambda: kernel(x)) if provider == 'triton' else (lambda: torch.%s(x))\n"
            "    ms = triton.testing.do_bench(fn)\n"
            "    return 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)\n\n\n"
            "benchmark.run(print_data=True)\n" % (wl, wl, wl))


class Session:
    def __init__(self, rnd, name, noise, lang):
        self.r, self.name, self.noise, self.lang = rnd, name, noise, lang
        self.sid = str(uuid.UUID(int=rnd.getrandbits(128)))
        self.parent = None
        self.t = 1_750_000_000.0 + rnd.randrange(10 ** 6)
        self.out = []
        self.files = {}
        self.truth = dict(jumps=[], questions=[], human_lines=[])
        self.nuser = 0

    def _u(self):
        return str(uuid.UUID(int=self.r.getrandbits(128)))

    def _rec(self, d):
        self.t += self.r.uniform(3, 90)
        u = self._u()
        ts = "%s.%03dZ" % (__import__("time").strftime("%Y-%m-%dT%H:%M:%S", __import__("time").gmtime(self.t)),
                           self.r.randrange(1000))
        base = {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                "cwd": "/home/dev/kern", "sessionId": self.sid, "version": "1.0.80",
                "gitBranch": "main", "uuid": u, "timestamp": ts}
        base.update(d)
        self.out.append(json.dumps(base, ensure_ascii=False))
        self.parent = u
        return u

    def human(self, text, kind):
        """kind: question | decoy | instruction | pasted (truth for mining)."""
        self.truth["human_lines"].append(dict(text=text, kind=kind))
        return self._rec({"type": "user", "message": {"role": "user", "content": text}})

    def say(self, text):
        mid = "msg_%016x" % self.r.getrandbits(64)
        self._rec({"type": "assistant", "requestId": "req_%012x" % self.r.getrandbits(48),
                   "message": {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4",
                               "content": [{"type": "text", "text": text}], "stop_reason": None,
                               "usage": {"input_tokens": 10, "output_tokens": 20}}})

    def tool(self, name, inp, result, extra=None):
        tid = "toolu_%024x" % self.r.getrandbits(96)
        self._rec({"type": "assistant", "requestId": "req_%012x" % self.r.getrandbits(48),
                   "message": {"id": "msg_%016x" % self.r.getrandbits(64), "type": "message",
                               "role": "assistant", "model": "claude-sonnet-4",
                               "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
                               "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 20}}})
        d = {"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": tid, "type": "tool_result", "content": result}]}}
        if extra is not None:
            d["toolUseResult"] = extra
        self._rec(d)
        return tid

    def write(self, path, text):
        self.files[path] = text
        self.tool("Write", {"file_path": "/home/dev/kern/" + path, "content": text},
                  "File created successfully at: /home/dev/kern/" + path,
                  {"type": "create", "filePath": "/home/dev/kern/" + path, "content": text})

    def edit(self, path, new_tail):
        """Replace the file's marked body (everything after the marker) with new_tail."""
        cur = self.files[path]
        head, old = cur.split("// BODY\n", 1)
        new = head + "// BODY\n" + new_tail + "\n"
        self.files[path] = new
        self.tool("Edit", {"file_path": "/home/dev/kern/" + path, "old_string": "// BODY\n" + old,
                           "new_string": "// BODY\n" + new_tail + "\n"},
                  "The file /home/dev/kern/%s has been updated." % path,
                  {"filePath": "/home/dev/kern/" + path, "oldString": "// BODY\n" + old,
                   "newString": "// BODY\n" + new_tail + "\n", "originalFile": cur})

    def bash(self, cmd, output):
        return self.tool("Bash", {"command": cmd, "description": "Run benchmark"}, output,
                         {"stdout": output, "stderr": "", "interrupted": False, "isImage": False})


def question_text(rnd, item, lang):
    en, zh = item[0], item[1]
    use_zh = lang == "zh" or (lang == "mix" and rnd.random() < 0.5)
    return (zh if use_zh else en), use_zh


def build(rnd, name, noise, lang, mode, qjumps):
    s = Session(rnd, name, noise, lang)
    nwl = 1 if mode in ("pure",) else rnd.choice([1, 1, 2, 3])
    wls = rnd.sample(WORKLOADS, nwl)
    st = []
    for wl, cmd, path in wls:
        fmt = rnd.choice(FORMATS)
        ref = rnd.uniform(0.05, 5.0)
        st.append(dict(wl=wl, cmd=cmd, path=path, fmt=fmt, ref=ref, level=rnd.uniform(0.25, 0.9),
                       bodies=["base"], body=0, nbench=0))
    s.human(rnd.choice(["Optimize the kernels in this repo; the benchmarks are %s." %
                        ", ".join(w["cmd"] for w in st),
                        "请优化这个仓库里的kernel，benchmark命令是 %s。" % st[0]["cmd"]]), "instruction")
    for w in st:
        s.write(w["path"], "// %s kernel\n#include <cuda_runtime.h>\n// BODY\nbase\n" % w["wl"])
    # a perf_report table prints no unit: the script that prints it (its
    # Benchmark's ylabel) is how a reader knows, so the agent writes it
    # here; drawn from a stream of its own so that the rest of the session
    # is the one the same seed gave before
    sub = random.Random(rnd.getstate().__repr__())
    main_r, s.r = s.r, sub
    for w in st:
        if w["fmt"] == "perfreport":
            s.write(perf_script_path(w["cmd"], w["wl"]), perf_script(w["wl"]))
    s.r = main_r

    def run_bench(w, correct=True, note=None):
        t = w["ref"] / w["level"] * math.exp(rnd.gauss(0, noise))
        ref = w["ref"] * math.exp(rnd.gauss(0, noise))
        w["nbench"] += 1
        out = fmt_output(rnd, w["fmt"], w["wl"], t, ref, correct)
        tid = s.bash(w["cmd"], out)
        return tid

    def new_body(w, text):
        w["bodies"].append(text + "\n// v%d" % len(w["bodies"]))
        w["body"] = len(w["bodies"]) - 1
        s.edit(w["path"], w["bodies"][w["body"]])

    # every workload is measured once before any change (its baseline)
    for w in st:
        s.say("Measuring the starting point of %s." % w["wl"])
        run_bench(w)

    layers = list(Q)
    used_q = set()
    jumps_total = rnd.randint(2, 5) if mode != "pure" else 0
    if qjumps is not None:
        jumps_total = max(qjumps, jumps_total)
    causes = []
    for k in range(jumps_total):
        if mode == "null":
            causes.append("agent")
        elif qjumps is not None:
            causes.append("question" if k < qjumps else "agent")
        else:
            causes.append("question" if rnd.random() < 0.6 else "agent")
    if qjumps is not None:
        rnd.shuffle(causes)
    nsteps = 10 + 6 * jumps_total + rnd.randint(0, 6)
    jump_at = sorted(rnd.sample(range(3, nsteps), jumps_total)) if jumps_total else []
    # null mode: questions at random steps, independent of the jumps
    null_q_at = set(rnd.sample(range(1, nsteps), min(nsteps - 1, rnd.randint(2, 5)))) if mode == "null" else set()
    qmsgs = 0
    for step in range(nsteps):
        w = rnd.choice(st)
        # background: decoys, instructions, pasted logs, self questions
        x = rnd.random()
        if x < 0.07:
            s.human(rnd.choice(DECOYS_ZH if (lang == "zh" or (lang == "mix" and rnd.random() < .5)) else DECOYS_EN),
                    "decoy_question")
            s.say("It takes about a minute; continuing with the kernel.")
        elif x < 0.13:
            s.human(rnd.choice(INSTR_ZH if lang == "zh" else INSTR_EN), "instruction")
            s.say("Understood.")
        elif x < 0.16:
            s.human(rnd.choice(PASTED), "pasted")
            s.say("That warning is harmless here.")
        elif x < 0.22:
            s.say(rnd.choice(SELFQ))
        if step in null_q_at:
            layer = rnd.choice(layers)
            item = rnd.choice(Q[layer])
            text, zh = question_text(rnd, item, lang)
            s.human(text, "question")
            s.say(item[3] if zh else item[2])
            new_body(w, item[5] + "\n// tried, no effect")
            run_bench(w)
            qmsgs += 1
            continue
        if step in jump_at:
            k = jump_at.index(step)
            cause = causes[k]
            gain = rnd.uniform(1.35, 2.6)
            rec = dict(workload=w["wl"], cause=cause, gain=round(gain, 4), format=w["fmt"])
            if cause == "question":
                choices = [(l, i) for l in layers for i in range(len(Q[l])) if (l, i) not in used_q]
                layer, i = rnd.choice(choices)
                used_q.add((layer, i))
                item = Q[layer][i]
                text, zh = question_text(rnd, item, lang)
                echo = rnd.random() < 0.6
                s.human(text, "question")
                rec.update(question=text, zh=zh, echoed=echo, layer=layer)
                if echo:
                    s.say(item[3] if zh else item[2])
                else:
                    s.say(item[4])
                # sometimes a failed first try before the real fix
                if rnd.random() < 0.3:
                    new_body(w, "// first attempt\n" + rnd.choice(TUNES)[1])
                    run_bench(w)
                new_body(w, item[5])
            else:
                if rnd.random() < 0.25:
                    s.human(rnd.choice(DECOYS_EN), "decoy_question")
                    s.say("Yes. Back to the kernel.")
                plan, code = rnd.choice(SELF_PLANS)
                s.say(plan)
                rec.update(question=None, plan=plan)
                new_body(w, code)
            w["level"] *= gain
            tid = run_bench(w)
            rec["tool_use_id"] = tid
            rec["bench_index"] = w["nbench"]
            s.truth["jumps"].append(rec)
            continue
        # plateau behaviour
        y = rnd.random()
        if y < 0.35:
            msg, code = rnd.choice(TUNES)
            s.say(msg)
            new_body(w, code)
            run_bench(w)
        elif y < 0.5:
            s.say("Re-running to check the timing is stable.")
            run_bench(w)
        elif y < 0.65:
            # regression then revert to the previous code
            s.say("Trying an unrolled variant of the epilogue.")
            prev = w["body"]
            w["bodies"].append("// unrolled epilogue, slower\n// v%d" % len(w["bodies"]))
            w["body"] = len(w["bodies"]) - 1
            s.edit(w["path"], w["bodies"][-1])
            lv = w["level"]
            w["level"] = lv / rnd.uniform(1.3, 2.0)
            run_bench(w)
            w["level"] = lv
            s.say("That was slower; reverting.")
            w["body"] = prev
            s.edit(w["path"], w["bodies"][prev])
            run_bench(w)
        elif y < 0.8:
            # a fast but wrong result
            s.say("Trying to skip the bounds masking.")
            w["bodies"].append("// no masking\n// v%d" % len(w["bodies"]))
            prev = w["body"]
            w["body"] = len(w["bodies"]) - 1
            s.edit(w["path"], w["bodies"][-1])
            lv = w["level"]
            w["level"] = lv * rnd.uniform(1.4, 2.0)
            run_bench(w, correct=False)
            w["level"] = lv
            s.say("Wrong results; reverting.")
            w["body"] = prev
            s.edit(w["path"], w["bodies"][prev])
            run_bench(w)
        else:
            s.say("Reading the profiler output.")
            s.tool("Bash", {"command": "ncu --set full %s" % w["cmd"]},
                   "==PROF== Profiling \"kern\": 0%....50%....100% - 36 passes\n  DRAM Throughput  %  71.3\n")
    s.human(rnd.choice(["Thanks, that's enough for today.", "好的，今天就到这里。"]), "courtesy")
    s.truth["null_questions"] = qmsgs
    s.truth["workloads"] = {w["wl"]: dict(cmd=w["cmd"], format=w["fmt"]) for w in st}
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--noise", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lang", default="en", choices=["en", "zh", "mix"])
    ap.add_argument("--null", action="store_true")
    ap.add_argument("--pure", action="store_true")
    ap.add_argument("--qjumps", type=int)
    a = ap.parse_args()
    mode = "null" if a.null else "pure" if a.pure else "plant"
    os.makedirs(a.out, exist_ok=True)
    truth = dict(mode=mode, noise=a.noise, seed=a.seed, lang=a.lang, sessions={})
    for i in range(a.sessions):
        rnd = random.Random("%d/%s/%s/%g/%d/%s" % (a.seed, mode, a.lang, a.noise, i, a.qjumps))
        name = "p2-%s-%s-%d-%04d" % (mode, a.lang, a.seed, i)
        s = build(rnd, name, a.noise, a.lang, mode, a.qjumps)
        with open(os.path.join(a.out, name + ".jsonl"), "w") as f:
            f.write("\n".join(s.out) + "\n")
        truth["sessions"][name] = s.truth
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump(truth, f, ensure_ascii=False, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
