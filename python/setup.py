"""setup.py: builds gpuvet._gpuvet (gpuvet/_gpuvet.c) against the project's library.

The library is build/pic/libgpuvet_py.a of the checkout that holds this folder, made here by
`make python-lib` (position-independent objects of src/core, dev, nn, drop7 and emu, the CPU
variant); the flags file beside it gives the compiler and linker flags of its packages
(OpenBLAS, cJSON, xxHash, libpng, zlib, OpenMP). GPUVET_ROOT names another checkout.
"""
import os
import subprocess

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.environ.get("GPUVET_ROOT", os.path.join(here, "..")))
lib = os.path.join(root, "build", "pic", "libgpuvet_py.a")


def library():
    """Makes (or brings up to date) the library and returns its compile and link flags."""
    if not os.path.exists(os.path.join(root, "src", "drop7", "drop7.h")):
        raise SystemExit("gpuvet: %s is not a gpuvet checkout (set GPUVET_ROOT to one)" % root)
    jobs = "-j%d" % (os.cpu_count() or 1)
    r = subprocess.run(["make", "-C", root, "--no-print-directory", jobs, "GPU=cpu", "python-lib"])
    if r.returncode != 0:
        raise SystemExit("gpuvet: `make -C %s GPU=cpu python-lib` failed (exit %d): the build packages may be "
                         "missing (scripts/bootstrap.sh python)" % (root, r.returncode))
    flags = {}
    with open(lib + ".flags") as f:
        for line in f:
            key, _, val = line.strip().partition(" ")
            flags[key] = val.split()
    return flags


flags = library()
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
