"""Trains a tiny MLP with the fused RMSNorm on a fixed synthetic regression task."""
import argparse
import time

import numpy as np
import pynvml
import torch
from einops import rearrange

from fused_rmsnorm import FusedRMSNorm


class Model(torch.nn.Module):
    def __init__(self, dim=256, hidden=512):
        super().__init__()
        self.inp = torch.nn.Linear(dim, hidden)
        self.norm = FusedRMSNorm(hidden)
        self.out = torch.nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(self.norm(torch.nn.functional.gelu(self.inp(x))))


def gpu_name():
    pynvml.nvmlInit()
    return pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(0))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    device = torch.device("cuda")
    print(f"device: {gpu_name()}")
    target = torch.randn(256, device=device)
    model = Model().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    start = time.time()
    for step in range(1, args.steps + 1):
        x = torch.randn(args.batch, 4, 64, device=device)
        x = rearrange(x, "b h d -> b (h d)")
        y = torch.tanh(x @ target).unsqueeze(1)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    torch.cuda.synchronize()
    print(f"steps/s: {args.steps / (time.time() - start):.1f}")
    print(f"final loss: {loss.item():.4f}")


if __name__ == "__main__":
    main()
