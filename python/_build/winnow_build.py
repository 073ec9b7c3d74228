"""winnow's build backend (PEP 517), kept in the tree.

`pip install ./python` (or `pip install winnow-X.tar.gz`, the sdist this
backend makes) must work offline, in any virtual environment of Python 3.9
or later: pip's isolated build would fetch setuptools from the network,
which a crawler's machine often lacks. So the backend needs nothing but
the standard library, the C compiler and pkg-config, and declares no
build requirement.

The extension module is built one of two ways (WINNOW_LIBRARY chooses;
"auto" by default):
  installed  against the installed libwinnow that pkg-config finds
             (PKG_CONFIG_PATH for a prefix of your own), with its
             directory as the module's run path;
  bundled    with libwinnow's C sources compiled into the module itself:
             the checkout's (../include, ../src) or the sdist's copy
             (libwinnow/). Its dependencies are the Debian packages of
             config/debian-packages (libxml2, lmdb, curl, ...), found with
             pkg-config.
"auto" takes the installed library when pkg-config finds one of the
sources' own version (an older libwinnow would not match the package's
Python layer), else the bundled sources.
"""
import base64
import hashlib
import io
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = ["build_wheel", "build_sdist", "get_requires_for_build_wheel",
           "get_requires_for_build_sdist"]

PACKAGE = Path(__file__).resolve().parent.parent  # python/
# libwinnow's modules (CMakeLists.txt, WN_CORE_SOURCES); the daemon and
# the CLI are not in the library.
CORE = ("util", "dom", "fetch", "template", "learn", "detect", "store", "site", "warc")
# Its dependencies (config/winnow.pc.in, Requires.private).
DEPS = ("libxml-2.0", "lmdb", "libcurl", "uchardet", "libpsl", "jansson", "zlib", "nettle",
        "libutf8proc", "libzstd")
# The package's own files, as they are installed.
PY_FILES = ("__init__.py", "warc.py", "_winnow.pyi", "py.typed")
SUMMARY = "The main content of web pages, by learning each site's template"


class BuildError(Exception):
    pass


def _library_tree():
    """The libwinnow sources: the sdist's copy, else the checkout's."""
    for root in (PACKAGE / "libwinnow", PACKAGE.parent):
        if (root / "include" / "winnow" / "winnow.h").is_file() and all(
                (root / "src" / d).is_dir() for d in CORE):
            return root
    return None


def _tree_version(root):
    text = (root / "include" / "winnow" / "winnow.h").read_text(encoding="utf-8")
    m = re.search(r'#define WN_VERSION_STRING "([^"]+)"', text)
    if not m:
        raise BuildError("winnow.h names no WN_VERSION_STRING")
    return m.group(1)


def _pkg_config(*args, quiet=False):
    try:
        out = subprocess.run(["pkg-config", *args], check=True, capture_output=True,
                             text=True).stdout
    except FileNotFoundError:
        raise BuildError("pkg-config not found: install it (Debian: apt-get install "
                         "pkg-config) and the -dev packages of config/debian-packages")
    except subprocess.CalledProcessError as e:
        if quiet:
            return None
        raise BuildError("pkg-config %s: %s" % (" ".join(args), e.stderr.strip()))
    return shlex.split(out)


def _choose():
    """(mode, version, sources root or None)."""
    want = os.environ.get("WINNOW_LIBRARY", "auto")
    if want not in ("auto", "installed", "bundled"):
        raise BuildError("WINNOW_LIBRARY is %r: auto, installed or bundled" % want)
    root = _library_tree()
    tree = _tree_version(root) if root else None
    installed = None
    if want != "bundled":
        v = _pkg_config("--modversion", "winnow", quiet=True)
        installed = v[0] if v else None
    if want == "installed" or (want == "auto" and installed and installed == tree) or (
            want == "auto" and installed and tree is None):
        if not installed:
            raise BuildError("WINNOW_LIBRARY=installed, but pkg-config finds no libwinnow "
                             "(cmake --install build; PKG_CONFIG_PATH for a prefix)")
        return "installed", installed, None
    if root is None:
        raise BuildError("no libwinnow: pkg-config finds none%s, and neither the checkout "
                         "(../src) nor an sdist's libwinnow/ holds its sources" %
                         (" of this version" if installed else ""))
    return "bundled", tree, root


def _compiler():
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shlex.split(cc)


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError("%s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))


def _build_extension(out_dir):
    """Builds _winnow into out_dir; returns (path, version, mode)."""
    mode, version, root = _choose()
    cc = _compiler()
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = Path(out_dir) / ("_winnow" + suffix)
    py_inc = ["-I" + sysconfig.get_paths()["include"]]
    plat = sysconfig.get_paths().get("platinclude")
    if plat:
        py_inc.append("-I" + plat)
    base = ["-std=c11", "-O2", "-fPIC", "-D_POSIX_C_SOURCE=200809L", "-fvisibility=hidden",
            "-Werror=implicit-function-declaration"]
    objs_dir = Path(out_dir) / "obj"
    objs_dir.mkdir(parents=True, exist_ok=True)
    module_c = PACKAGE / "winnow" / "_winnow.c"
    if mode == "installed":
        cflags = _pkg_config("--cflags", "winnow")
        libs = _pkg_config("--libs", "winnow")
        libdir = _pkg_config("--variable=libdir", "winnow")
        rpath = ["-Wl,-rpath," + os.path.normpath(libdir[0])] if libdir else []
        _run(cc + base + py_inc + cflags + [str(module_c), "-shared", "-o", str(target)] +
             libs + rpath)
        return target, version, mode
    missing = [d for d in DEPS if _pkg_config("--exists", d, quiet=True) is None]
    if missing:
        raise BuildError("libwinnow's dependencies not found by pkg-config: %s (Debian: "
                         "scripts/install-deps, or the -dev packages of "
                         "config/debian-packages)" % ", ".join(missing))
    cflags = _pkg_config("--cflags", *DEPS)
    libs = _pkg_config("--libs", *DEPS) + ["-lm", "-lpthread"]
    inc = ["-I" + str(root / "include"), "-I" + str(root / "src")]
    sources = sorted(p for d in CORE for p in (root / "src" / d).glob("*.c"))
    jobs = []
    for i, src in enumerate(sources):
        obj = objs_dir / ("%03d_%s.o" % (i, src.stem))
        jobs.append(cc + base + inc + cflags + ["-c", str(src), "-o", str(obj)])
    module_o = objs_dir / "_winnow.o"
    jobs.append(cc + base + py_inc + inc + cflags + ["-c", str(module_c), "-o", str(module_o)])
    workers = int(os.environ.get("WINNOW_BUILD_JOBS", "0")) or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for f in [pool.submit(_run, j) for j in jobs]:
            f.result()
    objs = sorted(str(p) for p in objs_dir.glob("*.o"))
    _run(cc + ["-shared", "-o", str(target)] + objs + libs)
    return target, version, mode


def _wheel_tag():
    major, minor = sys.version_info[:2]
    impl = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, "py")
    interp = "%s%d%d" % (impl, major, minor)
    soabi = sysconfig.get_config_var("SOABI") or ""
    m = re.match(r"cpython-(\d+)([a-z]*)", soabi)
    abi = "cp%s%s" % (m.group(1), m.group(2)) if m else interp
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return "%s-%s-%s" % (interp, abi, plat)


def _metadata(version):
    readme = ("winnow extracts the main content of web pages: it learns each site's template "
              "and strips it from the site's pages; pages of sites without a template are "
              "read by a single-page method.\n")
    return ("Metadata-Version: 2.1\nName: winnow\nVersion: %s\nSummary: %s\n"
            "License: see LICENSE\nRequires-Python: >=3.9\n"
            "Description-Content-Type: text/plain\n\n%s" % (version, SUMMARY, readme))


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory(prefix="winnow-build-") as tmp:
        try:
            ext, version, mode = _build_extension(tmp)
        except BuildError as e:
            sys.stderr.write("winnow: cannot build the extension module: %s\n" % e)
            raise SystemExit(1)
        sys.stderr.write("winnow %s: extension built against the %s library\n" % (version, mode))
        tag = _wheel_tag()
        name = "winnow-%s-%s.whl" % (version, tag)
        info = "winnow-%s.dist-info" % version
        files = [("winnow/" + f, (PACKAGE / "winnow" / f).read_bytes()) for f in PY_FILES]
        files.append(("winnow/" + ext.name, ext.read_bytes()))
        license_file = PACKAGE.parent / "LICENSE"
        if not license_file.is_file():
            license_file = PACKAGE / "libwinnow" / "LICENSE"
        if license_file.is_file():
            files.append((info + "/LICENSE", license_file.read_bytes()))
        files.append((info + "/METADATA", _metadata(version).encode()))
        files.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: winnow_build\n"
                                        "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()))
        record = [_record_line(n, d) for n, d in files] + [info + "/RECORD,,"]
        files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
        path = Path(wheel_directory) / name
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for n, d in files:
                zi = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
                zi.external_attr = (0o755 if n.endswith(ext.suffix) else 0o644) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, d)
        return name


def build_sdist(sdist_directory, config_settings=None):
    """The package and libwinnow's sources (libwinnow/), so that the sdist
    builds with the bundled library where none is installed."""
    root = _library_tree()
    if root is None:
        sys.stderr.write("winnow: no libwinnow sources to put in the sdist\n")
        raise SystemExit(1)
    version = _tree_version(root)
    base = "winnow-%s" % version
    name = base + ".tar.gz"
    entries = [("pyproject.toml", PACKAGE / "pyproject.toml"),
               ("_build/winnow_build.py", PACKAGE / "_build" / "winnow_build.py")]
    for f in PY_FILES + ("_winnow.c",):
        entries.append(("winnow/" + f, PACKAGE / "winnow" / f))
    for p in sorted((PACKAGE / "tests").glob("*.py")):
        entries.append(("tests/" + p.name, p))
    for p in sorted((root / "include" / "winnow").glob("*.h")):
        entries.append(("libwinnow/include/winnow/" + p.name, p))
    for d in CORE:
        for p in sorted((root / "src" / d).iterdir()):
            if p.suffix in (".c", ".h"):
                entries.append(("libwinnow/src/%s/%s" % (d, p.name), p))
    if (root / "LICENSE").is_file():
        entries.append(("libwinnow/LICENSE", root / "LICENSE"))
    path = Path(sdist_directory) / name
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(arcname, data):
            ti = tarfile.TarInfo("%s/%s" % (base, arcname))
            ti.size = len(data)
            ti.mode = 0o644
            ti.mtime = 0
            tar.addfile(ti, io.BytesIO(data))
        for arcname, p in entries:
            add(arcname, p.read_bytes())
        add("PKG-INFO", _metadata(version).encode())
    return name


if __name__ == "__main__":  # python3 _build/winnow_build.py wheel|sdist DIR
    if len(sys.argv) != 3 or sys.argv[1] not in ("wheel", "sdist"):
        sys.exit("usage: winnow_build.py wheel|sdist DIR")
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    print((build_wheel if sys.argv[1] == "wheel" else build_sdist)(str(out)))
