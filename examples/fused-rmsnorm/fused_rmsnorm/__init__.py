"""Fused RMSNorm: the forward pass is the CUDA kernel in csrc/, the backward pass is analytic."""
import torch

from . import _C


class _RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        out, inv_rms = _C.forward(x, weight, eps)
        ctx.save_for_backward(x, weight, inv_rms)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, inv_rms = ctx.saved_tensors
        cols = x.shape[-1]
        x2 = x.reshape(-1, cols)
        g2 = grad_out.reshape(-1, cols)
        r = inv_rms.unsqueeze(1)
        normed = x2 * r
        grad_weight = (g2 * normed).sum(0)
        gw = g2 * weight
        grad_x = r * (gw - normed * (gw * normed).sum(1, keepdim=True) / cols)
        return grad_x.view_as(x), grad_weight, None


class FusedRMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return _RMSNormFunction.apply(x, self.weight, self.eps)
