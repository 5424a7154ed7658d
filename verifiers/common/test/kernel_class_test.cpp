// SPDX-License-Identifier: MIT
// Kernel-name families on names seen in real traces (tests/data) and in CK / triton / aten builds.
#include <r2r/verify/kernel_class.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::verifier;
using kf = kernel_family;

TEST(KernelClass, FlashAttention) {
  EXPECT_EQ(classify_kernel("ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<...>>"), kf::flash_attention);
  EXPECT_EQ(classify_kernel("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>>(Flash_fwd_params)"),
            kf::flash_attention);
  EXPECT_EQ(classify_kernel("FlashAttnFwd"), kf::flash_attention);
  EXPECT_EQ(classify_kernel("_attn_fwd"), kf::flash_attention);  // triton tutorial / aotriton
  EXPECT_EQ(classify_kernel("_fwd_kernel_attention"), kf::flash_attention);
  EXPECT_EQ(classify_kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64"),
            kf::flash_attention);  // seen on the H200
}

TEST(KernelClass, SdpaFallback) {
  EXPECT_EQ(classify_kernel("fmha_cutlassF_f32_aligned_32x128_gmem_sm80(PyTorchMemEffAttention::AttentionKernel)"),
            kf::sdpa_fallback);  // real H200 profiler row
  EXPECT_EQ(classify_kernel("void at::native::_efficient_attention_forward<float>"), kf::sdpa_fallback);
  EXPECT_EQ(classify_kernel("mem_efficient_attention_kernel"), kf::sdpa_fallback);
  EXPECT_EQ(classify_kernel("_fwd_kernel"), kf::other);  // triton _fwd_kernel without attention context
}

TEST(KernelClass, LibrariesAndOther) {
  EXPECT_EQ(classify_kernel("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0"), kf::blas);
  EXPECT_EQ(classify_kernel("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_execute_kernel__5x_cublas"),
            kf::blas);
  EXPECT_EQ(classify_kernel("MIOpenBatchNormBwdSpatial"), kf::dnn);
  EXPECT_EQ(classify_kernel("igemm_fwd_gtcx3_nhwc_fp16_bx0_ex0_bt128x128x32"), kf::dnn);
  EXPECT_EQ(classify_kernel("rccl_main_kernel(ncclDevComm*, unsigned long, ncclWork*)"), kf::collective);
  EXPECT_EQ(classify_kernel("elementwise_kernel"), kf::other);
}

TEST(KernelClass, CustomNamesWinAndMatchWholeIdentifiers) {
  const std::vector<std::string> custom{"addition_kernel", "fused_attn_fwd"};
  EXPECT_EQ(classify_kernel("void addition_kernel<float>(float*, float const*, float const*, int, int)", custom),
            kf::custom);
  EXPECT_EQ(classify_kernel("fused_attn_fwd", custom), kf::custom);
  EXPECT_EQ(classify_kernel("my_addition_kernel2(float*)", custom), kf::other);
}

TEST(KernelClass, GlobalFunctionNames) {
  const char* src = R"(
    template <typename T>
    __global__ void addition_kernel(T* out, const T* a, const T* b, int n) {}
    __global__ __launch_bounds__(256) void fused_rmsnorm_kernel(float* x) {}
    extern "C" __global__ void plain(int*);
    __device__ float helper(float x) { return x; }
  )";
  EXPECT_THAT(global_function_names(src), ::testing::ElementsAre("addition_kernel", "fused_rmsnorm_kernel", "plain"));
}

}  // namespace
