# SPDX-License-Identifier: MIT
# repo2rocm in-process probe. The Mode 1 verifier puts this file first on PYTHONPATH for one
# workload run. At interpreter exit it writes $R2R_PROBE_DIR/probe-<pid>.json: the torch build
# (torch.version.hip / .cuda), whether the GPU was usable, each initialised device's name, arch and
# peak allocated bytes, and with R2R_PROBE_PROFILE=1 the device kernels torch.profiler saw, by name
# and count, and the code loaded in the process (extension modules, Triton JIT functions, mapped
# shared objects): in-process detail about which build a kernel came from (the verifier passes a
# build only on the host's own record of its mapped object). It never changes what the workload
# computes; any probe failure is recorded, not raised.
# A sitecustomize that was already on the path is imported after this one.
import atexit
import importlib
import json
import os
import sys
import time

_DIR = os.environ.get("R2R_PROBE_DIR", "")
_T0 = time.time()
_STATE = {"profiler": None, "profiler_error": None, "profiler_path": None}


def _start_profiler():
    try:
        import torch  # noqa: F401  (the workload imports it anyway; needed before its first kernel)
        from torch.profiler import ProfilerActivity, profile

        prof = profile(activities=[ProfilerActivity.CUDA])
        prof.__enter__()
        _STATE["profiler"] = prof
    except Exception as e:  # a CPU-only torch or no torch: recorded, the workload still runs
        _STATE["profiler_error"] = "%s: %s" % (type(e).__name__, e)


def _count_device_events(events, kinds=("CUDA", "PrivateUse1", "HIP")):
    """Device kernels by name and count, from the profiler's C++ event list (KinetoEvent). The
    device type is compared as an enum value (str() of it per event costs as much as the rest)."""
    try:
        from torch.autograd import DeviceType

        wanted = {getattr(DeviceType, k) for k in kinds if hasattr(DeviceType, k)}
        is_device = wanted.__contains__
    except ImportError:
        is_device = lambda d: any(k in str(d) for k in kinds)  # noqa: E731
    counts = {}
    for ev in events:
        if is_device(ev.device_type()):
            name = ev.name()
            counts[name] = counts.get(name, 0) + 1
    return counts


def _kernels():
    """Stops the profiler and counts device kernels. The cheap path stops the trace with
    torch.autograd._disable_profiler() and reads the C++ result: torch.profiler's own exit builds a
    Python object per event, sorts them and builds a tree, which is what made the exit slow
    (bench/README.md). If the private API is missing, the documented path is used."""
    prof = _STATE["profiler"]
    if prof is None:
        return None
    import torch

    try:
        from torch.autograd import _disable_profiler
    except ImportError:
        _disable_profiler = None
    if _disable_profiler is not None:
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
        result = _disable_profiler()  # once stopped there is no way back to the documented path
        _STATE["profiler_path"] = "kineto result"
        return _count_device_events(result.events())
    prof.__exit__(None, None, None)
    _STATE["profiler_path"] = "torch.profiler events"
    counts = {}
    for ev in prof.events():
        if "CUDA" in str(getattr(ev, "device_type", "")) or "PrivateUse" in str(getattr(ev, "device_type", "")):
            counts[ev.name] = counts.get(ev.name, 0) + 1
    return counts


def _loaded_code():
    """Extension modules backed by a shared object, Triton JIT functions (and whether they were
    compiled), and the shared objects mapped into this process: what attributes a kernel to the
    repository's own build or to the flash_attn library."""
    extensions, triton = [], []
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None) or ""
        if (f.endswith(".so") or ".so." in f) and "/lib-dynload/" not in f:
            extensions.append({"module": name, "file": f})
        if "triton" not in sys.modules or mod is None:
            continue
        try:
            values = list(vars(mod).values())
        except TypeError:
            continue
        for v in values:
            try:
                fn = v
                for _ in range(4):  # Autotuner / Heuristics wrap a JITFunction in .fn
                    if type(fn).__name__ not in ("Autotuner", "Heuristics"):
                        break
                    fn = getattr(fn, "fn", None)
                if type(fn).__name__ != "JITFunction":
                    continue
                py = getattr(fn, "fn", None)
                code = getattr(py, "__code__", None)
                compiled = None
                for attr in ("device_caches", "cache"):
                    c = getattr(fn, attr, None)
                    if isinstance(c, dict):
                        compiled = any(bool(x[0] if isinstance(x, tuple) else x) for x in c.values())
                        break
                if compiled is False:
                    continue  # defined but never launched (triton.language's own helpers, unused kernels)
                triton.append({
                    "name": getattr(py, "__name__", ""),
                    "module": getattr(py, "__module__", "") or "",
                    "file": getattr(code, "co_filename", "") if code else "",
                    "compiled": compiled,
                })
            except Exception:  # objects whose attribute access raises (torch._classes...)
                continue
    objects = []
    try:
        with open("/proc/self/maps") as m:
            for line in m:
                parts = line.split(None, 5)
                path = parts[5].strip() if len(parts) == 6 else ""
                if path.startswith("/") and ".so" in path and path not in objects:
                    objects.append(path)
    except OSError:
        pass
    seen, unique = set(), []
    for t in triton:
        key = (t["name"], t["module"], t["file"])
        if key not in seen:
            seen.add(key)
            unique.append(t)
    return {"extensions": extensions, "triton": unique, "objects": objects[:500]}


def _torch_facts(info):
    torch = sys.modules.get("torch")
    if torch is None:
        info["torch"] = None
        return
    version = getattr(torch, "version", None)
    info["torch"] = {
        "version": getattr(torch, "__version__", ""),
        "hip": getattr(version, "hip", None),
        "cuda": getattr(version, "cuda", None),
    }
    cuda = torch.cuda
    info["is_available"] = bool(cuda.is_available())
    info["initialized"] = bool(cuda.is_initialized())
    devices = []
    if info["initialized"]:
        for i in range(cuda.device_count()):
            p = cuda.get_device_properties(i)
            devices.append({
                "index": i,
                "name": p.name,
                "arch": getattr(p, "gcnArchName", "") if info["torch"]["hip"] else "sm_%d%d" % (p.major, p.minor),
                "max_memory_allocated": int(cuda.max_memory_allocated(i)),
            })
    info["devices"] = devices


def _write():
    info = {"pid": os.getpid(), "ppid": os.getppid(), "argv": sys.argv[:6], "seconds": round(time.time() - _T0, 3)}
    try:
        info["kernels"] = _kernels()
    except Exception as e:
        info["kernels"] = None
        _STATE["profiler_error"] = "%s: %s" % (type(e).__name__, e)
    info["profiler_error"] = _STATE["profiler_error"]
    info["profiler_path"] = _STATE["profiler_path"]
    try:
        info["code"] = _loaded_code()
    except Exception as e:
        info["code"] = None
        info["probe_error"] = "code: %s: %s" % (type(e).__name__, e)
    try:
        _torch_facts(info)
    except Exception as e:
        info["probe_error"] = "%s: %s" % (type(e).__name__, e)
    path = os.path.join(_DIR, "probe-%d.json" % os.getpid())
    try:
        with open(path + ".tmp", "w") as f:
            json.dump(info, f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass


def _chain_next_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    saved = list(sys.path)
    mine = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    except Exception as e:
        _STATE["profiler_error"] = "next sitecustomize: %s: %s" % (type(e).__name__, e)
    finally:
        sys.path[:] = saved
        if mine is not None:
            sys.modules["sitecustomize"] = mine


if _DIR:
    if os.environ.get("R2R_PROBE_PROFILE") == "1":
        _start_profiler()
    atexit.register(_write)  # after torch's own handlers are registered, so it runs before them
    _chain_next_sitecustomize()
