// SPDX-License-Identifier: MIT
#include "hazard_catalog.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace r2r::plugins::converter {
namespace {

/// cudaDeviceProp fields that hipDeviceProp_t of HIP 5.2.3 does not have (a test compiles every
/// one of them against the installed HIP headers to keep this list true).
constexpr std::array<std::string_view, 51> missing_prop_fields_list = {
    "uuid",
    "luid",
    "luidDeviceNodeMask",
    "deviceOverlap",
    "maxTexture1DMipmap",
    "maxTexture2DMipmap",
    "maxTexture2DLinear",
    "maxTexture2DGather",
    "maxTexture3DAlt",
    "maxTextureCubemap",
    "maxTexture1DLayered",
    "maxTexture2DLayered",
    "maxTextureCubemapLayered",
    "maxSurface1D",
    "maxSurface2D",
    "maxSurface3D",
    "maxSurface1DLayered",
    "maxSurface2DLayered",
    "maxSurfaceCubemap",
    "maxSurfaceCubemapLayered",
    "surfaceAlignment",
    "asyncEngineCount",
    "unifiedAddressing",
    "persistingL2CacheMaxSize",
    "streamPrioritiesSupported",
    "globalL1CacheSupported",
    "localL1CacheSupported",
    "sharedMemPerMultiprocessor",
    "regsPerMultiprocessor",
    "multiGpuBoardGroupID",
    "hostNativeAtomicSupported",
    "singleToDoublePrecisionPerfRatio",
    "computePreemptionSupported",
    "canUseHostPointerForRegisteredMem",
    "sharedMemPerBlockOptin",
    "maxBlocksPerMultiProcessor",
    "accessPolicyMaxWindowSize",
    "reservedSharedMemPerBlock",
    "hostRegisterSupported",
    "sparseCudaArraySupported",
    "hostRegisterReadOnlySupported",
    "timelineSemaphoreInteropSupported",
    "memoryPoolsSupported",
    "gpuDirectRDMASupported",
    "gpuDirectRDMAFlushWritesOptions",
    "gpuDirectRDMAWritesOrdering",
    "memoryPoolSupportedHandleTypes",
    "deferredMappingCudaArraySupported",
    "ipcEventSupported",
    "clusterLaunch",
    "unifiedFunctionPointers",
};

const std::vector<hazard_rule>& rules() {
  static const std::vector<hazard_rule> list = {
      {"wave32-constant",
       "warning",
       {"cdna"},
       "the warp size is hard-coded as 32, but a CDNA wavefront (gfx90a, gfx942, gfx950) has 64 lanes: loops, "
       "buffers and lane indices derived from it cover only half a wavefront",
       "use warpSize at run time, or __AMDGCN_WAVEFRONT_SIZE (a compile-time constant in device code) instead "
       "of 32; size per-warp buffers for 64"},
      {"lane-mask-arith",
       "warning",
       {"cdna"},
       "lane and warp indices computed with & 31, % 32, >> 5 or / 32 assume 32 lanes per warp; on a 64-lane "
       "wavefront lanes 32-63 get wrong lane ids and two warps' data collide",
       "compute lane = threadIdx.x % warpSize and warp = threadIdx.x / warpSize (or use __lane_id()), and size "
       "arrays indexed by warp with blockDim.x / warpSize"},
      {"reduction-from-16",
       "warning",
       {"cdna"},
       "a shuffle reduction that starts at offset 16 (or stops below 32) combines only 32 lanes; on a 64-lane "
       "wavefront the result misses half of the values",
       "start at warpSize / 2: for (int offset = warpSize / 2; offset > 0; offset /= 2)"},
      {"full-mask-32",
       "warning",
       {"cdna"},
       "0xffffffff is the full lane mask of a 32-lane warp; a 64-lane wavefront needs a 64-bit mask, so this "
       "mask names only lanes 0-31",
       "make masks 64-bit (unsigned long long, ~0ull) or drop them where the HIP intrinsic takes none"},
      {"warp-sync-intrinsic",
       "warning",
       {"cdna", "rdna"},
       "the *_sync warp intrinsics take a 32-bit lane mask; HIP 5.x has no *_sync forms at all, and ROCm's later "
       "*_sync forms take 64-bit masks and require every named lane to take part",
       "use the HIP intrinsic without _sync and without the mask (__shfl_down(v, d), __ballot(p), __any(p), "
       "__all(p)) when all lanes of the wavefront execute it; otherwise pass a 64-bit mask of the active lanes"},
      {"ballot-32bit",
       "error",
       {"cdna"},
       "a ballot has one bit per lane; on a 64-lane wavefront HIP's __ballot returns 64 bits, and keeping it in "
       "32 bits (or counting it with __popc) silently drops lanes 32-63",
       "store ballots in unsigned long long (uint64_t) and count them with __popcll; use __ffsll for the first "
       "lane"},
      {"activemask",
       "warning",
       {"cdna", "rdna"},
       "__activemask() returns a 32-bit mask in CUDA; HIP 5.x has no __activemask, and a wavefront's active "
       "mask is 64 bits on CDNA",
       "use __ballot(1) (64-bit) for the active lanes, and keep the result in unsigned long long"},
      {"syncwarp",
       "warning",
       {"cdna", "rdna"},
       "__syncwarp does not exist in HIP 5.x; AMD wavefronts execute in lockstep, but the compiler may still "
       "reorder shared-memory accesses that __syncwarp ordered",
       "where it orders shared memory between lanes, use __syncthreads() (always correct) or "
       "__builtin_amdgcn_fence(__ATOMIC_RELEASE, \"wavefront\") plus __builtin_amdgcn_wave_barrier(); "
       "where it only re-converges, remove it"},
      {"inline-ptx",
       "error",
       {"cdna", "rdna"},
       "inline PTX is NVIDIA's virtual ISA; the AMDGPU back end cannot assemble it, so the kernel does not "
       "compile for any gfx target",
       "replace each instruction by the HIP intrinsic or builtin with the same effect (for example __lane_id(), "
       "__shfl, __builtin_amdgcn_* ); keep the PTX only under #ifdef __HIP_PLATFORM_NVIDIA__. If this is host "
       "assembly, it is not affected"},
      {"wmma",
       "error",
       {"cdna", "rdna"},
       "nvcuda::wmma (tensor-core fragments from <mma.h>) has no HIP counterpart with the same types",
       "port to rocWMMA (rocwmma::fragment, load_matrix_sync, mma_sync, store_matrix_sync) and check that the "
       "fragment shapes and types are supported on the target gfx (rocWMMA documents them per architecture)"},
      {"mma-ptx",
       "error",
       {"cdna", "rdna"},
       "mma.sync / wgmma / ldmatrix are NVIDIA tensor-core instructions; AMD matrix cores use different MFMA "
       "(CDNA) or WMMA (RDNA3+) instructions with different layouts",
       "use rocWMMA, Composable Kernel, or the __builtin_amdgcn_mfma_* builtins, and re-derive the data layout"},
      {"cp-async",
       "error",
       {"cdna", "rdna"},
       "cp.async / memcpy_async pipelines copy global to shared memory asynchronously on sm_80+; HIP has no "
       "asynchronous copy API or instruction for it",
       "load into registers and store to shared memory, then __syncthreads(); double-buffer by hand if the "
       "pipeline overlapped copies with compute"},
      {"tma",
       "error",
       {"cdna", "rdna"},
       "the Tensor Memory Accelerator (CUtensorMap, cp.async.bulk.tensor) and thread-block clusters are Hopper "
       "features with no AMD equivalent",
       "replace the bulk tensor copies with ordinary cooperative loads, and clusters with independent blocks"},
      {"cuda-arch-check",
       "error",
       {"cdna", "rdna"},
       "HIP never defines __CUDA_ARCH__: `#if __CUDA_ARCH__ >= X` is false and `#ifdef __CUDA_ARCH__` skips "
       "its branch, so device-only code silently disappears or the wrong fallback is compiled",
       "test __HIP_DEVICE_COMPILE__ for device versus host passes, and the __gfx*__ macros (e.g. __gfx90a__, "
       "__gfx942__) or __AMDGCN_WAVEFRONT_SIZE for target features"},
      {"cuda-version-check",
       "error",
       {"cdna", "rdna"},
       "__CUDACC_VER_MAJOR__/__CUDACC_VER_MINOR__/__CUDACC_VER_BUILD__ are nvcc's version; HIP-Clang never "
       "defines them, so they are undeclared in code and 0 in `#if`, where a version test silently takes the "
       "branch for the oldest CUDA",
       "test HIP_VERSION_MAJOR/HIP_VERSION_MINOR (<hip/hip_version.h>) for the HIP release, or drop a check that "
       "only guards an nvcc requirement"},
      {"device-pointer-arithmetic",
       "error",
       {"cdna", "rdna"},
       "CUdeviceptr is an integer (unsigned long long) in CUDA, so code adds byte offsets to it; HIP's "
       "hipDeviceptr_t is void*, on which +, - and % do not compile",
       "do the byte arithmetic on a char pointer and convert back: (hipDeviceptr_t)((char*)p + offset)"},
      {"shared-memory-64k",
       "error",
       {"cdna", "rdna"},
       "a work-group can use at most 64 KiB of LDS on gfx90a, gfx942 and RDNA (160 KiB only on gfx950); a "
       "kernel that asks for more fails to compile or to launch",
       "keep shared memory per block within 64 KiB: tile the data, reduce the block size, or keep part in "
       "registers/global memory; on gfx950 up to 160 KiB is possible"},
      {"dynamic-shared-memory",
       "warning",
       {"cdna", "rdna"},
       "the kernel raises its dynamic shared-memory limit; values above 64 KiB work on NVIDIA sm_80+ but not "
       "on gfx90a/gfx942/RDNA",
       "check that the requested size stays within 64 KiB (160 KiB on gfx950) for every configuration"},
      {"texture-reference",
       "error",
       {"cdna", "rdna"},
       "texture and surface references (texture<...>, cudaBindTexture, tex1Dfetch(ref, i)) were removed in "
       "CUDA 12 and are deprecated in HIP; they are not supported on newer ROCm",
       "use texture objects: hipCreateTextureObject with a hipResourceDesc/hipTextureDesc, pass the "
       "hipTextureObject_t to the kernel and read it with tex1Dfetch<T>(obj, i)"},
      {"cg-tile",
       "error",
       {"cdna", "rdna"},
       "a cooperative-groups tile is at most one wavefront; tiles larger than 64 (or than 32 on RDNA, which "
       "runs wave32) are not supported",
       "use tiles of at most warpSize threads, or a thread_block and __syncthreads() for larger groups"},
      {"cg-tile-32",
       "warning",
       {"cdna"},
       "a 32-thread tile is half a CDNA wavefront: tile operations work, but code that treats the tile as the "
       "whole warp (warp-level ballots, masks, lane ids from threadIdx.x % 32) breaks",
       "derive lane ids from the tile (tile.thread_rank()) and use tile operations, not warp-level intrinsics"},
      {"cg-partition",
       "error",
       {"cdna", "rdna"},
       "cooperative_groups::binary_partition and labeled_partition split a tile by a value through a lane "
       "mask; HIP (6.4) declares neither, so the unit does not compile",
       "partition by hand: take the tile's 64-bit ballot of the predicate, use __popcll of the ballot (masked "
       "to the tile's lanes) as the group size and of the lanes below as the rank, and reduce over lanes that "
       "share the predicate (or run one reduction over the whole tile with the other group's values zeroed)"},
      {"coalesced-threads",
       "warning",
       {"cdna", "rdna"},
       "coalesced_threads() groups the active lanes of a warp through a lane mask, which is 64 bits on CDNA",
       "check every use of the group's mask and size for 32-lane assumptions"},
      {"device-prop-field",
       "warning",
       {"cdna", "rdna"},
       "this cudaDeviceProp field does not exist in hipDeviceProp_t of ROCm 5.x (checked against HIP 5.2.3; "
       "ROCm 6.0 reworked the struct and added many fields), so the code does not compile there",
       "query the value with hipDeviceGetAttribute where an attribute exists, or guard the use with the HIP "
       "version (HIP_VERSION_MAJOR >= 6) after checking the field in the target's hip_runtime_api.h"},
      {"launch-bounds",
       "note",
       {"cdna", "rdna"},
       "__launch_bounds__'s second argument is the minimum number of blocks per multiprocessor in CUDA but is "
       "read as a minimum number of warps per execution unit by HIP",
       "check the second argument against the HIP meaning, or drop it"},
  };
  return list;
}

}  // namespace

std::span<const hazard_rule> hazard_rules() {
  return rules();
}

std::span<const std::string_view> missing_device_prop_fields() {
  return missing_prop_fields_list;
}

const hazard_rule& hazard_rule_by_id(std::string_view id) {
  for (const auto& r : rules()) {
    if (r.id == id) return r;
  }
  throw std::out_of_range("no hazard rule '" + std::string(id) + "'");
}

}  // namespace r2r::plugins::converter
