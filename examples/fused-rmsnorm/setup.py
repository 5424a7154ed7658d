from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fused_rmsnorm",
    version="0.1.0",
    packages=["fused_rmsnorm"],
    ext_modules=[
        CUDAExtension(
            name="fused_rmsnorm._C",
            sources=["csrc/rmsnorm_binding.cpp", "csrc/rmsnorm_kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
