#!/bin/sh
# Installs the build into a scratch prefix, builds examples/extract.c
# against the installed copy with pkg-config (shared library, then static)
# and runs it on the fixture site: what a user embedding libwinnow does.
# usage: test_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/winnow-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/winnow include/winnow/winnow.h include/winnow/base.h share/man/man1/winnow.1; do
  [ -e "$prefix/$f" ] || { echo "missing after install: $f" >&2; exit 1; }
done
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n 1)
libdir=${libdir%/pkgconfig}
[ -e "$libdir/libwinnow.a" ] || { echo "missing libwinnow.a" >&2; exit 1; }
# The ABI rule (docs/library.md): before 1.0 the soname names the minor
# version (a minor release may change the ABI), from 1.0 the major one.
version=$(sed -n 's/^project(winnow VERSION \([0-9]*\)\.\([0-9]*\)\.[0-9]*.*/\1.\2/p' "$src/CMakeLists.txt")
case $version in
  0.*) want=libwinnow.so.$version ;;
  *) want=libwinnow.so.${version%%.*} ;;
esac
soname=$(objdump -p "$libdir/libwinnow.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "$want" ] || { echo "soname is '$soname', the ABI rule says '$want'" >&2; exit 1; }
# The shared library exports the functions of winnow.h (with the base.h it
# includes) and nothing else.
exported=$(nm -D --defined-only "$libdir/libwinnow.so" | awk '{print $3}' | sort)
declared=$(sed -n 's/^WN_API [^(]*[ *]\(wn_[a-z0-9_]*\)(.*/\1/p' "$prefix/include/winnow/winnow.h" \
  "$prefix/include/winnow/base.h" | sort)
[ -n "$declared" ] && [ "$exported" = "$declared" ] || {
  echo "exported symbols differ from winnow.h and base.h:" >&2
  printf '%s\n' "$exported" >"$prefix/e"; printf '%s\n' "$declared" >"$prefix/d"
  diff "$prefix/e" "$prefix/d" >&2 || true
  exit 1
}
# The public headers (winnow.h and base.h) and no other: no private header,
# nor the daemon's (winnow/serve.h: its library is not installed either).
[ "$(find "$prefix/include" -name '*.h' | wc -l)" -eq 2 ] || { echo "private headers installed" >&2; exit 1; }
# The daemon is not in libwinnow: no wn_serve*/wn_server* symbol in either
# library, and pkg-config names no HTTP server or YAML library, even for a
# static link.
if nm --defined-only "$libdir/libwinnow.a" "$libdir/libwinnow.so" 2>/dev/null |
  grep -q ' wn_serve'; then
  echo "the daemon is in libwinnow" >&2; exit 1
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
for libs in "$(pkg-config --libs winnow)" "$(pkg-config --static --libs winnow)"; do
  case "$libs" in
  *microhttpd* | *yaml*) echo "pkg-config --libs winnow names the daemon's libraries: $libs" >&2; exit 1 ;;
  esac
done
cc=${CC:-cc}
site=$src/tests/fixtures/site
check() {
  out=$("$@" www.harbourgazette.example "$site/article-6.html" "$site/article-1.html" \
    "$site/article-2.html" "$site/article-3.html" 2>"$prefix/err")
  grep -q 'method=template' "$prefix/err" || { cat "$prefix/err" >&2; exit 1; }
  # Content in, boilerplate out.
  printf '%s' "$out" | grep -q 'Councillors voted unanimously' || { echo "content missing: $out" >&2; exit 1; }
  if printf '%s' "$out" | grep -q 'Youth rowers take regional title'; then echo "boilerplate kept" >&2; exit 1; fi
}
$cc -std=c11 -Wall -Werror "$src/examples/extract.c" $(pkg-config --cflags --libs winnow) \
  -o "$prefix/extract-shared"
LD_LIBRARY_PATH=$libdir check "$prefix/extract-shared"
# Static libwinnow, its dependencies shared (as Debian ships them; a fully
# static libcurl needs the static builds of all of curl's own libraries).
$cc -std=c11 -Wall -Werror "$src/examples/extract.c" $(pkg-config --cflags winnow) \
  "$libdir/libwinnow.a" \
  $(pkg-config --libs $(pkg-config --print-requires-private winnow | awk '{print $1}')) -lm \
  -o "$prefix/extract-static"
check "$prefix/extract-static"
"$prefix/bin/winnow" --version | grep -q '^winnow ' || exit 1
# The Python package: as cmake --install puts it (when it was built), and
# as `pip install ./python` builds it in a fresh virtual environment, with
# no network (the in-tree backend, python/_build/winnow_build.py): against
# the installed library that pkg-config finds, with libwinnow's sources
# compiled in (none installed), and from the sdist.
py=$(ls -d "$prefix"/lib/python3*/dist-packages 2>/dev/null | head -n 1 || true)
if [ -n "$py" ] && [ -e "$py/winnow/__init__.py" ]; then
  pycheck() { # PYTHON [PYTHONPATH]
    out=$(PYTHONPATH=${2:-} "$1" -c 'import sys, winnow
print(winnow.extract(open(sys.argv[1], "rb").read()))' "$src/tests/fixtures/single/article.html")
    printf '%s' "$out" | grep -q 'Harbour town votes' || { echo "python ($1 ${2:-}): $out" >&2; exit 1; }
  }
  pycheck /usr/bin/python3 "$py"
  if /usr/bin/python3 -m venv "$prefix/venv" >/dev/null 2>&1; then
    vpy=$prefix/venv/bin/python
    pipi() { # MODE what...
      mode=$1; shift
      WINNOW_LIBRARY=$mode "$vpy" -m pip install -q --no-index --force-reinstall "$@" \
        >"$prefix/pyerr" 2>&1 || { cat "$prefix/pyerr" >&2; exit 1; }
    }
    pipi installed "$src/python"
    pycheck "$vpy"
    ldd "$prefix"/venv/lib/python3*/site-packages/winnow/_winnow*.so | grep -q "$libdir/libwinnow" ||
      { echo "pip install ./python did not link the installed libwinnow" >&2; exit 1; }
    pipi bundled "$src/python"
    pycheck "$vpy"
    if ldd "$prefix"/venv/lib/python3*/site-packages/winnow/_winnow*.so | grep -q libwinnow; then
      echo "the bundled build links a libwinnow" >&2; exit 1
    fi
    "$vpy" "$src/python/_build/winnow_build.py" sdist "$prefix/sdist" >/dev/null
    tar -tzf "$prefix"/sdist/winnow-*.tar.gz | grep -q 'libwinnow/src/detect/single.c' ||
      { echo "the sdist lacks libwinnow's sources" >&2; exit 1; }
    pipi bundled "$prefix"/sdist/winnow-*.tar.gz
    pycheck "$vpy"
    echo "python package, installed, and built by pip (installed library, bundled, sdist): ok"
  else
    echo "python3 -m venv unavailable (python3-venv): pip install ./python not checked" >&2
    exit 1
  fi
fi
echo "install, pkg-config, shared and static builds of the example: ok"
