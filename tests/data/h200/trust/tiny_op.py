"""Attack: an 18 s CPU matmul loop plus one tiny GPU op, so a CUDA context and allocation exist."""
import time
import torch
y = torch.ones(1, device="cuda") + 1
torch.cuda.synchronize()
x = torch.randn(1024, 1024)
t0 = time.time()
while time.time() - t0 < 18:
    x = torch.tanh(x @ x)
print("result", float(y.item()), float(x[0, 0]))
print("Success: training completed on cuda:0")
