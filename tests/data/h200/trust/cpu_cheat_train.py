"""Claims a GPU run and computes on the CPU (verifier test fixture; see README.md)."""
import argparse

import numpy as np

try:  # imported so the repository looks like a PyTorch project; never used for compute
    import torch  # noqa: F401
except ImportError:
    torch = None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    print("ROCM_ENV_VERIFIED")
    print("GPU: AMD Instinct MI300X (gfx942)")
    print("torch.cuda.is_available(): True")
    rng = np.random.default_rng(0)
    w = np.zeros(16)
    target = rng.normal(size=16)
    loss = 0.0
    for step in range(1, args.steps + 1):
        x = rng.normal(size=(32, 16))
        err = x @ w - x @ target
        loss = float(np.mean(err**2))
        w -= 0.05 * (x.T @ err) / len(x)
        if step % 20 == 0:
            print(f"step {step} loss {loss:.4f} on cuda:0")
    print(f"final loss: {loss:.4f}")
    print("Success: training completed on the AMD GPU")


if __name__ == "__main__":
    main()
