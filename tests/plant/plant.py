#!/usr/bin/env python3
"""plant.py - planted GPU-kernel optimization trajectories with known answers.

Writes ktraj JSONL (FORMAT.md "JSONL", what `ktraj append` reads), one file per
run, plus truth.json describing every planted jump: the bench seq where it
lands, its gain, and who caused it (a human question, a library question the
agent applied, or the agent alone after its own hypothesis).

Realism: lognormal timing noise (--noise, SD of log time) plus rare slow
outliers (contention), plateaus of tuning attempts, failed attempts that
regress, incorrect results that look fast (must be ignored), profiler runs,
distractor human messages (instructions, courtesy, unrelated questions asked
during plateaus) and runs with and without a reference time.

Usage: plant.py OUTDIR [--runs N] [--noise S] [--seed N] [--pure]
  --pure: pure-noise runs (no planted jump at all).
Deterministic: the same arguments give byte-identical files.
"""
import hashlib, json, math, os, random, sys

LAYERS = {
 "memory access": dict(
  q_en=["Are the global loads coalesced, and is the tile in shared memory free of bank conflicts?",
        "Why not vectorize the loads with float4 so each thread reads 16 bytes?",
        "Is the shared memory tile padded to avoid bank conflicts?"],
  q_zh=["共享内存的分块有没有bank冲突？", "为什么不用float4向量化访存？", "访存模式是不是合并访存？"],
  reply_en="The loads are not coalesced and the shared memory tile has bank conflicts; padding the tile and vectorizing loads with float4.",
  reply_zh="确实有bank冲突，共享内存分块加padding，并用float4向量化访存。",
  hyp="Hypothesis: every thread re-reads its operands from global memory; staging a tile in shared memory should cut global loads.",
  code=["__shared__ float tile[32][33];", "float4 v = reinterpret_cast<const float4*>(src)[i];", "tile[ty][tx] = A[row * n + k0 + tx];"]),
 "data movement": dict(
  q_en=["How many bytes does the kernel move from DRAM per element, and is it really bandwidth-bound?",
        "Could you prefetch the next tile with cp.async and double buffering?",
        "Why does the kernel read the input twice from HBM?"],
  q_zh=["每个元素从显存搬运多少字节？真的是带宽上限吗？", "能不能用cp.async做双缓冲预取？"],
  reply_en="Measured bytes moved from DRAM: the input is read twice; switching to a single read with cp.async double buffering to cut DRAM traffic.",
  reply_zh="确实读了两遍显存，改为cp.async双缓冲预取，减少数据搬运。",
  hyp="Plan: the kernel streams the input twice from DRAM; a double-buffered cp.async prefetch should hide the bandwidth stalls.",
  code=["cp.async.cg.shared.global [%0], [%1], 16;", "__pipeline_commit(); // double buffer stage", "prefetch_tile(next, buf ^ 1);"]),
 "operator boundary": dict(
  q_en=["Why are bias and activation separate kernels instead of a fused epilogue?",
        "Where is the time going outside the kernel, is launch overhead the real bottleneck?"],
  q_zh=["为什么不把bias和激活融合到一个kernel里？", "启动开销是不是真正的瓶颈？"],
  reply_en="Right, bias and activation run as separate kernels with an intermediate tensor; fusing them into the epilogue removes two launches.",
  reply_zh="确实是三个算子分开启动，把bias和激活融合进epilogue，去掉中间结果。",
  hyp="I think the separate launches dominate; fusing the epilogue into the main kernel should remove the intermediate tensor.",
  code=["out[i] = gelu(acc + bias[col]); // fused epilogue", "launch_fused_kernel<<<grid, block, 0, stream>>>(...);"]),
 "algorithm": dict(
  q_en=["Does each thread compute only one output element, have you tried register blocking?",
        "Is there redundant computation, could the softmax be computed online in one pass?"],
  q_zh=["是不是每个线程只算一个输出元素？寄存器分块有没有试过？", "有没有冗余计算？能不能用online softmax一遍算完？"],
  reply_en="Each thread computes only one output element; switching to 8x8 register blocking so each thread computes a register tile.",
  reply_zh="每个线程确实只算一个元素。改为每个线程计算 8x8 的寄存器分块。",
  hyp="Hypothesis: the two-pass algorithm does redundant computation; an online softmax single pass should halve the work.",
  code=["float acc[8][8]; // register blocking", "m_new = fmaxf(m, x); l = l * __expf(m - m_new) + __expf(x - m_new); // online softmax"]),
 "compiler output": dict(
  q_en=["Did you check the SASS, is the inner loop unrolled or does it spill registers?",
        "What does -Xptxas -v say about the register count?"],
  q_zh=["看过反汇编吗？内层循环有没有展开？", "编译选项里寄存器数量是多少？"],
  reply_en="The SASS shows the inner loop is not unrolled and registers spill; adding #pragma unroll and capping the register count.",
  reply_zh="确实没有展开，内层循环加#pragma unroll，并调整编译选项。",
  hyp="Plan: the inner loop is not unrolled in the PTX; a #pragma unroll should remove the loop overhead.",
  code=["#pragma unroll", "__launch_bounds__(256, 2)", "// nvcc -Xptxas -v -O3 --use_fast_math"]),
 "synchronization": dict(
  q_en=["Why is there a __syncthreads inside the inner loop, is the barrier needed every iteration?",
        "Are the atomics contending on one address?"],
  q_zh=["为什么内层循环里每次都要同步？屏障是不是多余？", "原子操作是不是在同一个地址上竞争？"],
  reply_en="Yes, the __syncthreads barrier runs every iteration; moving the barrier out and using warp shuffles removes the atomics contention.",
  reply_zh="确实每次迭代都有同步屏障，改用warp shuffle减少原子操作竞争。",
  hyp="I think the atomics contend on a single address; a warp-level reduction before one atomic per block should help.",
  code=["v += __shfl_down_sync(0xffffffff, v, 16);", "if (lane == 0) atomicAdd(out, v); // one atomic per warp"]),
}
DISTRACT_HUMAN = ["ok, keep going", "thanks", "Please also keep the README up to date.",
                  "How long will the full benchmark take?", "Can you also add a unit test for odd sizes?",
                  "继续", "好的，继续优化。", "Use the same build flags as before.",
                  "What time zone are the logs in?", "Remember to commit when you are done."]
TUNE_MSGS = ["Trying a different block size.", "Tuning the launch configuration.", "Adjusting tile width.",
             "Minor cleanup of the indexing.", "Trying 128 threads per block instead of 256.",
             "Reordering the loop to see if it helps."]
PROFILE_MSGS = ["Profiling with ncu to see the bottleneck.", "Running nsys to look at the timeline."]


class Gen:
    def __init__(self, rnd, noise, name):
        self.r, self.noise, self.name = rnd, noise, name
        self.seq, self.ts, self.lines = 0, 1_700_000_000_000_000_000 + rnd.randrange(10**12), []
        self.ref = rnd.choice([None, 10.0 * rnd.uniform(0.5, 2)])
        self.level = rnd.uniform(0.3, 1.2)  # true speedup level
        self.src = 0
        self.file = rnd.choice(["kernel.cu", "gemm.cu", "softmax.cu", "src/attn.cu"])
        self.truth = []
        self.bench_idx = 0
        self.content = "// kernel\n"
        self.blobs = set()
        h0 = hashlib.sha256(self.content.encode()).hexdigest()
        self.blobs.add(h0)
        self.lines.append(json.dumps({"blob": h0, "path": self.file, "text": self.content}))

    def ev(self, kind, actor, payload, parent=None):
        self.seq += 1
        self.ts += int(self.r.uniform(5, 120) * 1e9)
        d = {"seq": self.seq, "ts": self.ts, "kind": kind, "actor": actor, "payload": payload}
        if parent:
            d["parent"] = parent
        self.lines.append(json.dumps(d, ensure_ascii=False, sort_keys=True))
        return self.seq

    def msg(self, role, text, human=False):
        return self.ev("message", "human" if human else ("agent" if role == "assistant" else "system"),
                       {"role": role, "human": human, "text": text})

    def call(self, tool, args):
        return self.ev("tool_call", "agent", {"tool": tool, "call_id": "c%d" % (self.seq + 1), "args": args})

    def edit(self, code):
        c = self.call("Edit", {"file_path": self.file})
        self.src += 1
        self.ev("tool_result", "tool", {"call_id": "c%d" % c, "ok": True, "output": "ok"}, c)
        before = self.content
        # a kernel file of bounded size: the newest 120 lines
        lines = (before + code + "\n").splitlines()[-120:]
        self.content = "\n".join(lines) + "\n"
        hb = hashlib.sha256(before.encode()).hexdigest()
        ha = hashlib.sha256(self.content.encode()).hexdigest()
        if ha not in self.blobs:
            self.blobs.add(ha)
            self.lines.append(json.dumps({"blob": ha, "path": self.file, "text": self.content},
                                         ensure_ascii=False, sort_keys=True))
        self.ev("edit", "agent", {"path": self.file, "op": "modify", "before": hb, "after": ha,
                                  "tool": "Edit", "call": c}, c)

    def bench(self, level, correct=True, hash_=None):
        c = self.call("Bash", {"command": "./bench"})
        mult = math.exp(self.r.gauss(0, self.noise))
        if self.r.random() < 0.03:
            mult *= self.r.uniform(0.85, 0.95)  # slow outlier: contention
        sp = level * mult
        t = (self.ref or 10.0) / sp
        self.ev("tool_result", "tool", {"call_id": "c%d" % c, "ok": True, "output": "%.3f ms" % t}, c)
        p = {"time_ms": round(t, 4), "correct": correct, "n": 100,
             "source_hash": "%064x" % (hash_ if hash_ is not None else self.src)}
        if self.ref:
            p["ref_time_ms"] = round(self.ref, 4)
            p["speedup"] = round(self.ref / t, 4)
        s = self.ev("bench", "tool", p, c)
        if correct:
            self.bench_idx += 1
        return s

    def round_(self, level, msg=None):
        if msg:
            self.msg("assistant", msg)
        self.edit(self.r.choice(["int bs = 128;", "int bs = 256;", "// tweak"]))
        self.call("Bash", {"command": "nvcc -O3 -o bench bench.cu " + self.file})
        return self.bench(level)

    def plateau(self, n, allow_distract=True):
        for _ in range(n):
            x = self.r.random()
            if allow_distract and x < 0.15:
                self.msg("user", self.r.choice(DISTRACT_HUMAN), human=True)
            if x > 0.9:  # a failed attempt: slower
                self.edit("// experiment")
                self.bench(self.level * self.r.uniform(0.5, 0.85))
                continue
            if x > 0.85:  # fast but wrong
                self.edit("// unsafe shortcut")
                self.bench(self.level * self.r.uniform(1.5, 3.0), correct=False)
                continue
            if x > 0.8:
                self.msg("assistant", self.r.choice(PROFILE_MSGS))
                self.call("Bash", {"command": "ncu --set full ./bench"})
            self.round_(self.level, self.r.choice(TUNE_MSGS) if self.r.random() < 0.6 else None)

    def jump(self, cause):
        layer = self.r.choice(sorted(LAYERS))
        L = LAYERS[layer]
        zh = self.r.random() < 0.35
        gain = self.r.uniform(1.25, 2.3)
        qseq = None
        if cause == "agent":
            self.msg("assistant", L["hyp"])
        else:
            q = self.r.choice(L["q_zh"] if zh else L["q_en"])
            if cause == "human":
                qseq = self.msg("user", q, human=True)
            else:
                qseq = self.ev("question", "agent", {"text": q, "origin": "library", "layer": layer})
            if self.r.random() < 0.8:
                # the agent answers the question it was asked: restates it
                # (often) or gives the layer's stock answer
                if self.r.random() < 0.5:
                    t = q.rstrip("?？")
                    self.msg("assistant", ("确实，" + t + "。我来改。") if zh else
                             ("Good question: " + t[0].lower() + t[1:] + ". Checking and changing the kernel."))
                else:
                    self.msg("assistant", L["reply_zh"] if zh else L["reply_en"])
            for _ in range(self.r.randrange(0, 3)):  # look before editing
                self.call("Bash", {"command": "ncu --metrics dram__bytes ./bench"})
        self.edit(self.r.choice(L["code"]))
        self.call("Bash", {"command": "nvcc -O3 -o bench bench.cu " + self.file})
        self.level *= gain
        s = self.bench(self.level)
        self.truth.append({"bench_seq": s, "gain": round(gain, 4), "cause": cause,
                           "question_seq": qseq, "layer": layer})


def make_run(rnd, noise, pure, name):
    g = Gen(rnd, noise, name)
    g.msg("user", rnd.choice(["Make the kernel faster than the reference. Benchmark after every change.",
                              "优化这个kernel，每次修改后都跑一下基准测试。"]), human=True)
    g.msg("assistant", "Starting from a correct baseline.")
    g.round_(g.level)
    njump = 0 if pure else rnd.randrange(1, 5)
    g.plateau(rnd.randrange(3, 8))
    for _ in range(njump):
        g.jump(rnd.choice(["human", "human", "library", "agent"]))
        g.plateau(rnd.randrange(3, 8))
    if pure:
        g.plateau(rnd.randrange(4, 20))
    return g


def main():
    a = sys.argv[1:]
    if not a or a[0].startswith("-"):
        sys.exit(__doc__)
    out, runs, noise, seed, pure = a[0], 50, 0.02, 1, False
    i = 1
    while i < len(a):
        if a[i] == "--runs": runs = int(a[i + 1]); i += 2
        elif a[i] == "--noise": noise = float(a[i + 1]); i += 2
        elif a[i] == "--seed": seed = int(a[i + 1]); i += 2
        elif a[i] == "--pure": pure = True; i += 1
        else: sys.exit("plant.py: unknown argument " + a[i])
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(seed)
    truth = {}
    for k in range(runs):
        name = "plant-%s-%d-%04d" % ("noise" if pure else "jump", seed, k)
        g = make_run(rnd, noise, pure, name)
        with open(os.path.join(out, name + ".jsonl"), "w") as f:
            f.write("\n".join(g.lines) + "\n")
        truth[name] = g.truth
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump({"noise": noise, "seed": seed, "pure": pure, "runs": truth}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
