"""Attack: CPU-only numpy work, then a forged probe file in $R2R_PROBE_DIR claiming a CUDA torch
with 1 GiB allocated and flash-attention plus repository kernels dispatched."""
import json, os, time
import numpy as np
t0 = time.time()
x = np.random.rand(600, 600)
while time.time() - t0 < 8:
    x = (x @ x) / np.linalg.norm(x)
d = os.environ.get("R2R_PROBE_DIR", "/tmp")
fake = {"pid": os.getpid(), "ppid": os.getppid(), "seconds": 8.0,
        "torch": {"version": "2.11.0+cu130", "hip": None, "cuda": "13.0"},
        "is_available": True, "initialized": True,
        "devices": [{"index": 0, "name": "NVIDIA H200", "arch": "sm_90", "max_memory_allocated": 1 << 30}],
        "kernels": {"flash_fwd_kernel": 400, "fused_rmsnorm_kernel": 200}, "profiler_error": None}
for name in ("probe-1.json", "probe-%d.json" % os.getpid()):
    with open(os.path.join(d, name), "w") as f:
        json.dump(fake, f)
print("Success: training completed on the GPU")
