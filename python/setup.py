"""Builds the winnow package against an installed libwinnow.

libwinnow first (its header, library and winnow.pc; `cmake --install
build`), then, offline, with Debian's setuptools:

    python3 -m pip install --no-build-isolation ./python

(in a virtual environment made with --system-site-packages, or with
--user; docs/python.md). pkg-config finds libwinnow (PKG_CONFIG_PATH for a
prefix of your own); the extension keeps the library's directory as its
run path, so no LD_LIBRARY_PATH is needed.
"""
import shlex
import subprocess
import sys

from setuptools import Extension, setup


def pkg_config(*args: str) -> list[str]:
    try:
        out = subprocess.run(["pkg-config", *args, "winnow"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit("winnow's Python package needs libwinnow installed first (cmake --install "
                 "build; pkg-config winnow must find it, PKG_CONFIG_PATH for another "
                 "prefix): %s" % (getattr(e, "stderr", "") or e))
    return shlex.split(out)


cflags = pkg_config("--cflags")
libs = pkg_config("--libs")
libdirs = [f[2:] for f in pkg_config("--libs-only-L")] or [
    pkg_config("--variable=libdir")[0]]

setup(
    name="winnow",
    version=pkg_config("--modversion")[0],
    description="The main content of web pages, by learning each site's template",
    packages=["winnow"],
    package_data={"winnow": ["py.typed", "*.pyi"]},
    ext_modules=[Extension(
        "winnow._winnow", ["winnow/_winnow.c"],
        extra_compile_args=cflags, extra_link_args=libs,
        runtime_library_dirs=libdirs)],
    python_requires=">=3.10",
)
