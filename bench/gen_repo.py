#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates benchmark repositories (deterministic, seeded) and commits them with git.

  gen_repo.py plan DIR [--files 20000]   a PyTorch-style repository of N files for `repo2rocm plan`
  gen_repo.py big DIR [--mb 100]         a repository of about N MB of incompressible data (clone benchmark)
"""
import argparse
import os
import random
import subprocess


def commit(root):
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    subprocess.run(["git", "init", "-q", "-b", "main", root], check=True)
    subprocess.run(["git", "-C", root, "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", root, "commit", "-q", "-m", "bench"], check=True, env=env)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def plan_repo(root, files):
    rnd = random.Random(42)
    third_party = ["numpy", "einops", "transformers", "yaml", "scipy", "tqdm", "wandb", "PIL", "cv2", "timm"]
    stdlib = ["os", "sys", "json", "math", "re", "typing", "collections", "itertools", "functools", "pathlib"]
    write(root, "requirements.txt", "torch==2.1.0+cu118\nflash-attn>=2.3\neinops\ntransformers>=4.36\ntimm\nwandb\n")
    write(root, "setup.py", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                            "setup(name='bench', install_requires=['numpy'], ext_modules=[CUDAExtension('bench_ops', ['csrc/ops.cu'])])\n")
    write(root, "README.md", "# bench\n\nTop-1 accuracy of 80.1%.\n\n```bash\npython train.py --epochs 1\n```\n")
    write(root, "train.py", "import torch\nif __name__ == '__main__':\n    pass\n")
    made = 4
    n_cu = files // 40
    n_md = files // 20
    i = 0
    while made < files:
        pkg = f"pkg{i % 50}/sub{(i // 50) % 20}"
        if i < n_cu:
            write(root, f"csrc/k{i}.cu", "__global__ void k(float* x) {\n  int lane = threadIdx.x % warpSize;\n" * 4 + "}\n")
        elif i < n_cu + n_md:
            write(root, f"docs/{pkg}/note{i}.md", "Some documentation text.\n" * 20)
        else:
            imports = rnd.sample(third_party, 2) + rnd.sample(stdlib, 3)
            body = "".join(f"import {m}\n" for m in imports)
            body += "import torch\n\n" + "".join(
                f"def f{j}(x):\n    y = torch.relu(x) * {j}\n    return y + {j}\n\n" for j in range(8))
            if i % 97 == 0:
                body += "torch.backends.cudnn.benchmark = True\n"
            write(root, f"{pkg}/m{i}.py", body)
        made += 1
        i += 1
    commit(root)


def big_repo(root, mb):
    rnd = random.Random(7)
    chunk = 256 * 1024
    for i in range(mb * 4):
        path = os.path.join(root, f"data/d{i // 100}/blob{i}.bin")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(rnd.randbytes(chunk))
    write(root, "README.md", "# big\n")
    commit(root)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["plan", "big"])
    p.add_argument("dir")
    p.add_argument("--files", type=int, default=20000)
    p.add_argument("--mb", type=int, default=100)
    a = p.parse_args()
    if os.path.exists(a.dir):
        raise SystemExit(f"{a.dir} exists; give a new directory")
    if a.kind == "plan":
        plan_repo(a.dir, a.files)
    else:
        big_repo(a.dir, a.mb)


if __name__ == "__main__":
    main()
