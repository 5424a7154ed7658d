# SPDX-License-Identifier: MIT
# The in-process probe's profiler exit cost, on the CPU: N small torch ops are recorded with
# torch.profiler (ProfilerActivity.CPU, the CPU stand-in for the probe's device activity), then the
# profiler is stopped the way the probe stops it: "documented" = torch.profiler's own exit and
# prof.events() (what the probe did before), "kineto" = torch.autograd._disable_profiler() and a
# count over the C++ result with the probe's own _count_device_events (what the probe does now).
# Prints one line per path: events, seconds.
# Usage: python3 bench/probe_profiler_exit.py [N=100000] [documented|kineto|both]
import importlib.util
import os
import sys
import time

import torch

# The probe, loaded under its own name (Python has already imported the system's sitecustomize);
# with R2R_PROBE_DIR unset, loading it starts nothing.
_spec = importlib.util.spec_from_file_location(
    "r2r_probe", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "verifiers", "common", "scripts",
                              "sitecustomize.py"))
probe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(probe)
from torch.profiler import ProfilerActivity, profile

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
WHICH = sys.argv[2] if len(sys.argv) > 2 else "both"


def workload(prof_path):
    x = torch.ones(4)
    prof = profile(activities=[ProfilerActivity.CPU])
    prof.__enter__()
    t0 = time.perf_counter()
    for _ in range(N):
        x = x + 1
    t_run = time.perf_counter() - t0
    t0 = time.perf_counter()
    if prof_path == "documented":
        prof.__exit__(None, None, None)
        counts = {}
        for ev in prof.events():
            counts[ev.name] = counts.get(ev.name, 0) + 1
    else:
        from torch.autograd import _disable_profiler

        counts = probe._count_device_events(_disable_profiler().events(), kinds=("CPU",))
    t_exit = time.perf_counter() - t0
    events = sum(counts.values())
    print("%-10s ops %d events %d run %.2f s exit %.2f s" % (prof_path, N, events, t_run, t_exit), flush=True)


torch.set_num_threads(1)
for path in (["documented", "kineto"] if WHICH == "both" else [WHICH]):
    workload(path)
