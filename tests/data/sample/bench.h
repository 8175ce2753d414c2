/*
 * bench.h - the benchmark driver of the sample session's softmax.cu
 * (make_sample.py: the agent reads it before the first build, so the
 * trajectory, and a replay bundle of its bench steps, carry it).
 *
 * `./softmax --bench ROWSxCOLS` fills a ROWS x COLS float matrix with
 * values in [-4, 4) (a fixed seed), launches the kernel 10 times to warm
 * up and 100 times between two CUDA events, checks every row against a
 * softmax computed on the CPU in double precision (max abs error below
 * 1e-5 passes) and prints the five lines the session recorded.  Exit 0 on
 * PASS, 1 on FAIL or a CUDA error, 2 on bad usage.
 */
#ifndef BENCH_H
#define BENCH_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

/* The first version's time on the recording's H100 (the session's first
 * benchmark): every speedup printed is against it. */
#define BENCH_REFERENCE_MS 1.874
#define BENCH_WARMUP 10
#define BENCH_ITERS 100

typedef void (*bench_kernel)(const float *, float *, int, int);

static int bench_fail(const char *what, cudaError_t e)
{
	fprintf(stderr, "bench: %s: %s\n", what, cudaGetErrorString(e));
	return 1;
}

static int bench_main(int argc, char **argv, bench_kernel kernel, int threads)
{
	int rows, cols, i, r, c, blocks;
	size_t n;
	float *hx, *hy, *dx = NULL, *dy = NULL, ms = 0.f;
	double err = 0.0;
	cudaEvent_t t0, t1;
	cudaDeviceProp prop;
	cudaError_t e;

	if (argc != 3 || strcmp(argv[1], "--bench") ||
	    sscanf(argv[2], "%dx%d", &rows, &cols) != 2 || rows <= 0 || cols <= 0) {
		fprintf(stderr, "usage: %s --bench ROWSxCOLS\n", argv[0]);
		return 2;
	}
	n = (size_t)rows * cols;
	hx = (float *)malloc(n * sizeof(float));
	hy = (float *)malloc(n * sizeof(float));
	if (!hx || !hy) {
		fprintf(stderr, "bench: out of memory\n");
		return 1;
	}
	srand(1);
	for (size_t k = 0; k < n; k++)
		hx[k] = (float)rand() / (float)RAND_MAX * 8.f - 4.f;
	if ((e = cudaMalloc((void **)&dx, n * sizeof(float))) ||
	    (e = cudaMalloc((void **)&dy, n * sizeof(float))) ||
	    (e = cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice)))
		return bench_fail("device memory", e);
	/* enough threads for one warp per row, the most any version uses;
	 * a version with one thread per row returns from the extra ones */
	blocks = (int)(((size_t)rows * 32 + (size_t)threads - 1) / (size_t)threads);
	for (i = 0; i < BENCH_WARMUP; i++)
		kernel<<<blocks, threads>>>(dx, dy, rows, cols);
	cudaEventCreate(&t0);
	cudaEventCreate(&t1);
	cudaEventRecord(t0);
	for (i = 0; i < BENCH_ITERS; i++)
		kernel<<<blocks, threads>>>(dx, dy, rows, cols);
	cudaEventRecord(t1);
	if ((e = cudaEventSynchronize(t1)) || (e = cudaGetLastError()))
		return bench_fail("kernel", e);
	cudaEventElapsedTime(&ms, t0, t1);
	ms /= BENCH_ITERS;
	if ((e = cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost)))
		return bench_fail("copy back", e);
	for (r = 0; r < rows; r++) {
		const float *x = hx + (size_t)r * cols;
		double m = -INFINITY, s = 0.0;

		for (c = 0; c < cols; c++)
			m = fmax(m, (double)x[c]);
		for (c = 0; c < cols; c++)
			s += exp((double)x[c] - m);
		for (c = 0; c < cols; c++)
			err = fmax(err, fabs(exp((double)x[c] - m) / s -
					     (double)hy[(size_t)r * cols + c]));
	}
	if ((e = cudaGetDeviceProperties(&prop, 0)))
		return bench_fail("device properties", e);
	printf("softmax %dx%d fp32 on %s\n", rows, cols, prop.name);
	printf("warmup %d, iterations %d\n", BENCH_WARMUP, BENCH_ITERS);
	printf("time: %.3f ms (reference %.3f ms)\n", ms, BENCH_REFERENCE_MS);
	printf("speedup: %.2fx\n", BENCH_REFERENCE_MS / ms);
	printf("max_abs_err: %.1e  check: %s\n", err, err < 1e-5 ? "PASS" : "FAIL");
	cudaFree(dx);
	cudaFree(dy);
	free(hx);
	free(hy);
	return err < 1e-5 ? 0 : 1;
}
#endif
