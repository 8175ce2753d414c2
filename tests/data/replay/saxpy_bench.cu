// saxpy_bench.cu - a small CUDA benchmark as an agent would write one: runs
// y = a*x + y over 64 Mi floats, checks the result on the host, times 20
// launches with CUDA events and prints the median.  Used by
// tests/harness/imported_gpu.sh to record a Claude Code-style session on a
// GPU and replay its steps.
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = a * x[i] + y[i];
}

int main()
{
	const int n = 64 << 20;
	std::vector<float> hx(n), hy(n);
	for (int i = 0; i < n; i++) { hx[i] = (float)(i % 97); hy[i] = 1.0f; }
	float *x, *y;
	cudaMalloc(&x, n * sizeof(float));
	cudaMalloc(&y, n * sizeof(float));
	cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	saxpy<<<1024, 256>>>(n, 2.0f, x, y);
	cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
	bool ok = true;
	for (int i = 0; i < n && ok; i++) ok = hy[i] == 2.0f * (float)(i % 97) + 1.0f;
	cudaEvent_t a, b;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	std::vector<float> t;
	for (int r = 0; r < 20; r++) {
		cudaEventRecord(a);
		saxpy<<<1024, 256>>>(n, 2.0f, x, y);
		cudaEventRecord(b);
		cudaEventSynchronize(b);
		float ms;
		cudaEventElapsedTime(&ms, a, b);
		t.push_back(ms);
	}
	std::sort(t.begin(), t.end());
	printf("time_ms: %.4f\n", t[t.size() / 2]);
	printf("%s\n", ok ? "PASSED" : "FAILED");
	return ok ? 0 : 1;
}
