"""setup.py: builds gpuvet._gpuvet (gpuvet/_gpuvet.c) against the project's library.

The library is libgpuvet_py.a of the checkout that holds this folder, made here by `make
GPU=<variant> python-lib`: position-independent objects of src/core, dev, nn, drop7 and emu.
The variant is the CPU one (build/pic/) unless the checkout's program was built with
GPU=cuda (build/cuda/libgpuvet.a exists) and nvcc is at hand: then the CUDA one
(build/pic-cuda/, the device code included: Drop7Env(device="cuda"), ConsoleEnv(video="device")).
GPUVET_GPU=cpu|cuda picks one; GPUVET_ROOT names another checkout. The flags file beside the
library gives the compiler and linker flags of its packages (OpenBLAS, cJSON, xxHash, libpng,
zlib, OpenMP; the CUDA libraries for the CUDA variant).
"""
import os
import shutil
import subprocess

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.environ.get("GPUVET_ROOT", os.path.join(here, "..")))


def variant():
    """cpu or cuda: GPUVET_GPU, else cuda where the checkout has a CUDA build and nvcc."""
    v = os.environ.get("GPUVET_GPU", "")
    if v:
        if v not in ("cpu", "cuda"):
            raise SystemExit("gpuvet: GPUVET_GPU=%s: cpu or cuda" % v)
        return v
    nvcc = shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")
    return "cuda" if nvcc and os.path.exists(os.path.join(root, "build", "cuda", "libgpuvet.a")) else "cpu"


def library(gpu):
    """Makes (or brings up to date) the library and returns its path and flags."""
    if not os.path.exists(os.path.join(root, "src", "drop7", "drop7.h")):
        raise SystemExit("gpuvet: %s is not a gpuvet checkout (set GPUVET_ROOT to one)" % root)
    lib = os.path.join(root, "build", "pic" if gpu == "cpu" else "pic-" + gpu, "libgpuvet_py.a")
    jobs = "-j%d" % (os.cpu_count() or 1)
    r = subprocess.run(["make", "-C", root, "--no-print-directory", jobs, "GPU=" + gpu, "python-lib"])
    if r.returncode != 0:
        raise SystemExit("gpuvet: `make -C %s GPU=%s python-lib` failed (exit %d): the build packages may be "
                         "missing (scripts/bootstrap.sh python)" % (root, gpu, r.returncode))
    flags = {}
    with open(lib + ".flags") as f:
        for line in f:
            key, _, val = line.strip().partition(" ")
            flags[key] = val.split()
    return lib, flags


lib, flags = library(variant())
print("gpuvet: linking %s (%s variant)" % (lib, " ".join(flags.get("gpu", ["cpu"]))))
ext = Extension(
    "gpuvet._gpuvet",
    sources=["gpuvet/_gpuvet.c"],
    include_dirs=[os.path.join(root, "src")],
    extra_compile_args=["-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        "-Wno-missing-field-initializers"] + flags.get("cflags", []),
    extra_objects=[lib],
    extra_link_args=flags.get("libs", []),
    depends=[lib],
)
setup(ext_modules=[ext])
