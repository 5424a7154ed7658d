// SPDX-License-Identifier: MIT
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <fstream>
#include <stdexcept>

namespace r2r::test {

void write_file(const std::filesystem::path& root, const std::string& rel, const std::string& text) {
  const auto p = root / rel;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

void make_torch_training_repo(const std::filesystem::path& r) {
  write_file(r, "requirements.txt",
             "# training stack\n"
             "--extra-index-url https://download.pytorch.org/whl/cu118\n"
             "-r requirements/base.txt\n"
             "torch==2.1.0+cu118\n"
             "flash-attn>=2.3.0\n"
             "transformers[torch]>=4.36 ; python_version >= \"3.8\"\n"
             "nvidia-cublas-cu12==12.1.3.1\n"
             "pynvml\n");
  write_file(r, "requirements/base.txt", "einops>=0.7\nwandb\n-c constraints.txt\n");
  write_file(r, "requirements/constraints.txt", "numpy<2\n");
  write_file(r, "setup.py",
             "import os\nfrom setuptools import setup, find_packages\n"
             "from torch.utils.cpp_extension import BuildExtension, CUDAExtension, CUDA_HOME\n\n"
             "setup(\n    name='fusedattn',\n    python_requires='>=3.9',\n    packages=find_packages(),\n"
             "    install_requires=[\n        'numpy',\n        'pyyaml>=6',\n    ],\n"
             "    ext_modules=[CUDAExtension('fused_attn_cuda', ['csrc/attn.cu', 'csrc/attn.cpp'])],\n"
             "    cmdclass={'build_ext': BuildExtension},\n)\n");
  write_file(r, "csrc/attn.cu",
             "#include <cuda_runtime.h>\n__global__ void softmax(float* x) {\n"
             "  unsigned mask = __ballot_sync(0xffffffff, x[threadIdx.x] > 0.f);\n"
             "  if (threadIdx.x % warpSize == 0) x[0] = mask;\n}\n");
  write_file(r, "csrc/attn.cpp", "#include <torch/extension.h>\n");
  write_file(r, "fusedattn/__init__.py", "from .model import Net\n");
  write_file(
      r, "fusedattn/model.py",
      "import math\nimport torch\nfrom flash_attn import flash_attn_func\n\nclass Net(torch.nn.Module):\n    pass\n");
  write_file(r, "fusedattn/kernels.py",
             "import triton\nimport triton.language as tl\n\n@triton.jit\ndef add_kernel(x_ptr, n):\n    pass\n");
  write_file(r, "train.py",
             "import os, sys, json\nimport argparse\nimport torch\nimport yaml\nfrom fusedattn import Net\n"
             "from transformers import AutoModel\n\n"
             "torch.backends.cudnn.benchmark = True\n"
             "def main():\n    p = argparse.ArgumentParser()\n    p.add_argument('--epochs', type=int, default=1)\n"
             "    if torch.version.cuda is None:\n        print('observe: no cuda')\n"
             "    model = AutoModel.from_pretrained(\"bert-base-uncased/bert\")\n\n"
             "if __name__ == '__main__':\n    main()\n");
  write_file(r, "observe_metrics.py", "import numpy\nif __name__ == '__main__':\n    print('observe')\n");
  write_file(r, "scripts/train_8gpu.sh",
             "#!/bin/bash\nnvidia-smi\ntorchrun --nproc_per_node 8 train.py --epochs 100\n");
  write_file(r, "README.md",
             "# FusedAttn\n\nOur model reaches a top-1 accuracy of 81.2% on ImageNet.\n\n"
             "Download the data from https://huggingface.co/datasets/imagenet-1k/imagenet first.\n\n"
             "```bash\npip install -r requirements.txt\npython setup.py install\n"
             "python train.py --help\n"
             "CUDA_VISIBLE_DEVICES=0 python train.py \\\n    --epochs 3\n"
             "python observe_metrics.py\n```\n");
}

void make_jax_repo(const std::filesystem::path& r) {
  write_file(r, "environment.yml",
             "name: jaxenv\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.12\n  - numpy=1.26\n"
             "  - cudatoolkit=11.8\n  - pip\n  - pip:\n    - jax[cuda12]==0.4.35\n    - flax>=0.8\n    - optax\n");
  write_file(r, "train_jax.py",
             "import jax\nimport jax.numpy as jnp\nimport flax.linen as nn\nimport optax\n\n"
             "if __name__ == '__main__':\n    print(jax.devices())\n");
  write_file(r, "README.md", "# JAX model\n\n```\npython train_jax.py --steps 10\n```\n");
}

void make_poetry_repo(const std::filesystem::path& r) {
  write_file(r, "pyproject.toml",
             "[tool.poetry]\nname = \"poetrynet\"\nversion = \"0.1.0\"\n\n"
             "[tool.poetry.dependencies]\npython = \"^3.10\"\ntorch = \"^2.1\"\ntimm = \"~0.9.2\"\n"
             "accelerate = {version = \">=0.25\", optional = false}\n\n"
             "[tool.poetry.group.dev.dependencies]\npytest = \"*\"\n\n"
             "[build-system]\nrequires = [\"poetry-core>=1.0.0\"]\nbuild-backend = \"poetry.core.masonry.api\"\n");
  write_file(r, "poetrynet/__init__.py", "");
  write_file(r, "poetrynet/infer.py",
             "import torch\nimport timm\n\nif __name__ == '__main__':\n    print(timm.create_model('resnet18'))\n");
  write_file(
      r, "README.md",
      "# PoetryNet\n\n```sh\npoetry install\naccelerate launch --num_processes 2 poetrynet/infer.py --batch 8\n```\n");
}

void make_vllm_server_repo(const std::filesystem::path& r) {
  write_file(r, "requirements.txt", "vllm>=0.8.0\nfastapi\nuvicorn\n");
  write_file(r, "server.py",
             "from vllm import LLM, SamplingParams\nfrom fastapi import FastAPI\n\napp = FastAPI()\n"
             "llm = LLM(model=\"meta-llama/Llama-3.1-8B-Instruct\")\n");
  write_file(r, "README.md",
             "# Fast serving\n\nServe the model:\n\n```bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000\n"
             "```\n\nThroughput: 1520 tokens/s on one GPU. Latency is 45 ms at batch 1.\n");
}

void make_help_only_repo(const std::filesystem::path& r) {
  write_file(r, "requirements.txt", "torch\n");
  write_file(r, "run_model.py",
             "import argparse\nimport torch\n\nif __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
             "    p.add_argument('--ckpt', required=True)\n    p.parse_args()\n");
  write_file(r, "README.md", "# Tool\n\nUsage:\n\n```bash\npython run_model.py --help\n```\n");
}

void make_nothing_runnable_repo(const std::filesystem::path& r) {
  write_file(r, "requirements.txt", "numpy\nscipy\n");
  write_file(r, "mylib/__init__.py", "import numpy as np\n\ndef f(x):\n    return np.sum(x)\n");
  write_file(r, "README.md",
             "# mylib\n\nA library.\n\n```bash\npip install -e .\n```\n\n```python\nimport mylib\n```\n");
}

void make_malformed_repo(const std::filesystem::path& r) {
  write_file(r, "requirements.txt", "torch\nnumpy>=1.2\nthis is not valid!!\neinops\n");
  write_file(r, "pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"requests\",\n\n[broken\n");
  write_file(r, "environment.yml", "name: x\ndependencies:\n  - numpy\n  - [unclosed\n");
  write_file(r, "setup.cfg", "[options]\ninstall_requires =\n    scipy\n[metadata\n");
  write_file(r, "train.py", "import torch\nif __name__ == '__main__':\n    pass\n");
  write_file(r, "README.md", "```bash\npython train.py --epochs 1\n```\n");
}

std::string git(const std::filesystem::path& root, const std::string& args) {
  const auto r = run_process("git -C '" + root.string() + "' -c user.email=test@example.com -c user.name=test " + args);
  if (r.exit_code != 0) throw std::runtime_error("git " + args + " failed: " + r.err);
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string git_commit_all(const std::filesystem::path& root, const std::string& message) {
  if (!std::filesystem::exists(root / ".git")) git(root, "init -q -b main");
  git(root, "add -A");
  git(root, "commit -q -m '" + message + "'");
  return git(root, "rev-parse HEAD");
}

}  // namespace r2r::test
