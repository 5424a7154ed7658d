# SPDX-License-Identifier: MIT
# A small GPU workload for recording real Mode 1 evidence on an NVIDIA GPU: matmuls and one
# scaled-dot-product attention, then the metric lines and success markers a repository might print.
import time

import torch
import torch.nn.functional as F

x = torch.randn(4096, 4096, device="cuda")
for _ in range(50):
    y = x @ x
q = torch.randn(8, 16, 1024, 64, device="cuda", dtype=torch.float16)
for _ in range(5):
    o = F.scaled_dot_product_attention(q, q, q)
torch.cuda.synchronize()
time.sleep(2)  # long enough for the process sampler to see the process holding device memory
print("loss: %.4f" % float(o.float().abs().mean()))
print("accuracy = 91.5%")
print("ROCM_ENV_VERIFIED Success")
