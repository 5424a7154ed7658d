"""Fixed GPU work for the verification-overhead measurement: N bf16 8192^3 matmuls (about 60 s on
an H200 for N=40000); prints the seconds the loop took."""
import sys, time
import torch
n = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
c = a @ b
torch.cuda.synchronize()
t0 = time.time()
for i in range(n):
    c = a @ b
torch.cuda.synchronize()
print("bench_loop_seconds %.3f" % (time.time() - t0))
