# SPDX-License-Identifier: MIT
"""Makes the ROCm-side PyTorch headers (ATen/hip, c10/hip) from a CPU build of PyTorch.

Runs inside a HIP toolchain rootfs that has python3-torch and libtorch-dev (scripts/toolchains/hip.sh
--with-torch). A ROCm build of PyTorch makes these headers by running its own hipify over its CUDA
headers (out of place: c10/cuda/CUDAStream.h -> c10/hip/HIPStream.h); this does the same with the
hipify that ships in the torch package, then writes the two headers PyTorch's CMake configures
(hip_cmake_macros.h, HIPConfig.h), which a CPU build does not install.

Usage: python3 torch_hip_headers.py OUT
Writes OUT/aten/src/ATen/hip, OUT/c10/hip and OUT/include_dirs.txt (the include directories a
torch.utils.cpp_extension build passes on ROCm, in order, one per line), then OUT/torch_version.txt.
"""

import os
import shutil
import sys
import sysconfig

import torch
from torch.utils.hipify import hipify_python

# Header trees the ROCm build hipifies for extensions to include (tools/amd_build/build_amd.py
# lists these directories among its includes), with where they sit in PyTorch's source tree:
# hipify decides its renames from that layout.
TREES = [
    ("ATen/cuda", "aten/src/ATen/cuda"),
    ("ATen/native/cuda", "aten/src/ATen/native/cuda"),
    ("c10/cuda", "c10/cuda"),
]

# What PyTorch's CMake writes into the configured headers of a ROCm build with no cuDNN/MAGMA.
HIP_CMAKE_MACROS = """#pragma once
// Written by repo2rocm (scripts/toolchains/torch_hip_headers.py): the value a shared-library
// ROCm build of PyTorch configures.
#define C10_HIP_BUILD_SHARED_LIBS
"""

HIP_CONFIG = """#pragma once
// Written by repo2rocm (scripts/toolchains/torch_hip_headers.py): the values a ROCm build of
// PyTorch without cuDNN, cuSPARSELt, hipSPARSELt or MAGMA configures.
#define AT_CUDNN_ENABLED() 0
#define AT_CUSPARSELT_ENABLED() 0
#define AT_HIPSPARSELT_ENABLED() 0
#define AT_ROCM_ENABLED() 1
#define AT_MAGMA_ENABLED() 0
#define CAFFE2_STATIC_LINK_CUDA() 0
#define NVCC_FLAGS_EXTRA ""
"""


def main() -> int:
    if len(sys.argv) != 2 or not os.path.isabs(sys.argv[1]):
        print("usage: torch_hip_headers.py OUT (an absolute directory)", file=sys.stderr)
        return 2
    out = sys.argv[1]
    torch_include = os.path.join(os.path.dirname(torch.__file__), "include")
    shutil.rmtree(out, ignore_errors=True)
    for installed, source_layout in TREES:
        src = os.path.join(torch_include, installed)
        if not os.path.isdir(src):
            print(f"torch_hip_headers.py: {src} is missing; this torch ships no CUDA headers", file=sys.stderr)
            return 1
        shutil.copytree(src, os.path.join(out, source_layout))
    hipify_python.hipify(
        project_directory=out,
        output_directory=out,
        includes=[os.path.join(out, layout, "*") for _, layout in TREES],
        is_pytorch_extension=False,
        show_detailed=False,
        show_progress=False,
    )
    # Only the hipified trees stay: the CUDA originals are in torch/include already.
    for _, layout in TREES:
        shutil.rmtree(os.path.join(out, layout))
    for made in ("aten/src/ATen/hip/HIPContext.h", "c10/hip/HIPStream.h"):
        if not os.path.isfile(os.path.join(out, made)):
            print(f"torch_hip_headers.py: hipify did not make {made}", file=sys.stderr)
            return 1
    os.makedirs(os.path.join(out, "c10/hip/impl"), exist_ok=True)
    with open(os.path.join(out, "c10/hip/impl/hip_cmake_macros.h"), "w") as f:
        f.write(HIP_CMAKE_MACROS)
    with open(os.path.join(out, "aten/src/ATen/hip/HIPConfig.h"), "w") as f:
        f.write(HIP_CONFIG)
    dirs = [
        os.path.join(out, "aten/src"),
        out,
        torch_include,
        os.path.join(torch_include, "torch/csrc/api/include"),
        os.path.join(torch_include, "THH"),
        sysconfig.get_paths()["include"],
    ]
    with open(os.path.join(out, "include_dirs.txt"), "w") as f:
        f.write("".join(d + "\n" for d in dirs))
    with open(os.path.join(out, "torch_version.txt"), "w") as f:
        f.write(torch.__version__.split("+")[0] + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
