"""Honest GPU workload for the Mode 1 trust captures: bf16 matmuls on the GPU for SECONDS seconds."""
import os, sys, time
import torch
secs = float(sys.argv[1]) if len(sys.argv) > 1 else 20
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
t0, n = time.time(), 0
while time.time() - t0 < secs:
    for _ in range(50):
        c = a @ b
    torch.cuda.synchronize()
    n += 50
print(f"matmuls {n} in {time.time() - t0:.1f} s on {torch.cuda.get_device_name(0)}; checksum {float(c[0, :4].float().sum()):.3f}")
