#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a synthetic CUDA project of about SIZE megabytes for the conversion benchmark.

Usage: bench/gen_cuda_corpus.py OUT_DIR [--megabytes 50] [--seed 1]

The files mix what research CUDA code contains: runtime API calls with error checks, kernels and
launches (templates, streams, shared memory), warp intrinsics (some without a HIP form, so the
diagnostic path is exercised too), cuBLAS/cuRAND/cuFFT calls, macros, long comments and string
literals that mention CUDA names. Deterministic for a given seed. Nothing is downloaded.
"""
import argparse
import os
import random

RUNTIME_CALLS = [
    "CHECK(cudaMalloc(&{a}, {n} * sizeof(float)));",
    "CHECK(cudaMemcpyAsync({a}, {b}, {n} * sizeof(float), cudaMemcpyHostToDevice, stream));",
    "CHECK(cudaMemcpy({b}, {a}, {n} * sizeof(float), cudaMemcpyDeviceToHost));",
    "CHECK(cudaMemsetAsync({a}, 0, {n} * sizeof(float), stream));",
    "CHECK(cudaStreamSynchronize(stream));",
    "CHECK(cudaEventRecord(start, stream));",
    "CHECK(cudaEventElapsedTime(&ms, start, stop));",
    "CHECK(cudaGetLastError());",
    "CHECK(cudaFree({a}));",
    "CHECK(cudaDeviceSynchronize());",
    "CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel_{k}), "
    "cudaFuncAttributeMaxDynamicSharedMemorySize, {smem}));",
]
LIBRARY_CALLS = [
    "cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, {n}, {n}, {n}, &alpha, {a}, {n}, {b}, {n}, &beta, {a}, {n});",
    "cublasSetStream(handle, stream);",
    "curandGenerateUniform(gen, {a}, {n});",
    "cufftExecC2C(plan, reinterpret_cast<cufftComplex*>({a}), reinterpret_cast<cufftComplex*>({b}), CUFFT_FORWARD);",
]
COMMENTS = [
    "// Calls cudaMalloc and cudaMemcpy; the launch kernel<<<grid, block>>> reads {a}.",
    "/* Reduction over a warp: __shfl_down_sync(0xffffffff, v, offset) in the original CUDA code,\n"
    "   with cudaStream_t streams and cublasHandle_t handles documented here. */",
    "// perf note: cudaMemPrefetchAsync could help for {a} once managed memory lands.",
]
WARP_BODIES = [
    "  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);",
    "  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);",
    "  unsigned long long votes = __ballot(v > 0.0f);\n  v += __popcll(votes);",
    "  const int lane = threadIdx.x & 31;\n  v += lane;",
]


def kernel(rng, k):
    t = rng.choice(["float", "double", "int"])
    body = rng.choice(WARP_BODIES)
    tile = rng.choice([16, 32, 64])
    return f"""template <typename T, int kTile>
__global__ void kernel_{k}(const T* __restrict__ in, T* __restrict__ out, int n) {{
  __shared__ T tile[kTile][kTile + 1];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? static_cast<float>(in[i]) : 0.0f;
{body}
  tile[threadIdx.y % kTile][threadIdx.x % kTile] = static_cast<T>(v);
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x % kTile][threadIdx.y % kTile] + static_cast<T>(atomicAdd(&out[0], T(0)));
}}
template __global__ void kernel_{k}<{t}, {tile}>(const {t}*, {t}*, int);
"""


def host_function(rng, k):
    lines = [f"int run_{k}(float* host, int n) {{",
             "  float* d_a = nullptr;",
             "  float* d_b = nullptr;",
             "  float ms = 0.0f;",
             "  cudaStream_t stream;",
             "  cudaEvent_t start, stop;",
             "  CHECK(cudaStreamCreate(&stream));",
             '  const char* banner = "running cudaMalloc / cudaMemcpy / <<<...>>> on the device";',
             "  (void)banner;"]
    for _ in range(rng.randint(8, 16)):
        call = rng.choice(RUNTIME_CALLS + LIBRARY_CALLS)
        lines.append("  " + call.format(a=rng.choice(["d_a", "d_b"]), b="host", n=rng.choice([256, 1024, "n"]), k=k,
                                        smem=rng.choice([16384, 32768, 49152])))
        if rng.random() < 0.25:
            lines.append("  " + rng.choice(COMMENTS).format(a="d_a"))
    lines.append(f"  kernel_{k}<float, 16><<<(n + 255) / 256, dim3(16, 16), 0, stream>>>(d_a, d_b, n);")
    lines.append("  CHECK(cudaStreamDestroy(stream));")
    lines.append("  return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


HEADER = """// Synthetic CUDA source for the repo2rocm conversion benchmark (bench/gen_cuda_corpus.py).
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>
#include <cufft.h>
#include <cstdio>

#define CHECK(call)                                                                     \\
  do {{                                                                                  \\
    cudaError_t err_ = (call);                                                          \\
    if (err_ != cudaSuccess) std::printf("CUDA error %s\\n", cudaGetErrorString(err_));  \\
  }} while (0)

static cublasHandle_t handle;
static curandGenerator_t gen;
static cufftHandle plan;
static const float alpha = 1.0f, beta = 0.0f;
// file {index}
"""


def main():
    parser = argparse.ArgumentParser(description="Write a synthetic CUDA project for the conversion benchmark.")
    parser.add_argument("out")
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    target = int(args.megabytes * 1024 * 1024)
    written = 0
    index = 0
    while written < target:
        parts = [HEADER.format(index=index)]
        size = rng.randint(20_000, 60_000)
        k = 0
        while sum(len(p) for p in parts) < size:
            parts.append(kernel(rng, f"{index}_{k}"))
            parts.append(host_function(rng, f"{index}_{k}"))
            k += 1
        text = "\n".join(parts)
        sub = os.path.join(args.out, f"module_{index // 100:03d}")
        os.makedirs(sub, exist_ok=True)
        name = f"kernels_{index:05d}.cu" if index % 3 else f"ops_{index:05d}.cuh"
        with open(os.path.join(sub, name), "w", encoding="utf-8") as f:
            f.write(text)
        written += len(text.encode("utf-8"))
        index += 1
    print(f"wrote {index} files, {written / 1e6:.1f} MB ({written / 1048576:.1f} MiB) to {args.out}")


if __name__ == "__main__":
    main()
