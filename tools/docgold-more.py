"""Gold text for more documentation packages than the shared corpus tool
knows: its extractor (docgold.py) with rules for manuals we develop on.

usage: docgold-more.py DOCGOLD PKG ROOT OUTDIR
  DOCGOLD   path of ../shared/corpus/tools/docgold.py
  PKG       a package docgold.py knows, or one of MORE below

The rules say where each manual prints its text, read off its markup
(every page of the package, not chosen pages): what is left out is the
chrome its generator writes around every page.
"""
import importlib.util
import sys


def load(path):
    spec = importlib.util.spec_from_file_location("docgold", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    dg = load(sys.argv[1])
    m = dg.m
    more = {
        # asciidoc (man pages and articles) and DocBook (the user manual):
        # the body less the "Last updated" footer and DocBook's navigation.
        'git-doc': dict(include=None, exclude=[
            m('div', id='footer'), m('div', **{'class': 'navheader'}),
            m('div', **{'class': 'navfooter'})]),
        # Sphinx, as the Python manual: the main body less header links.
        'cmake-doc': dict(include=m('div', **{'class': 'body', 'role': 'main'}),
                          exclude=[m('a', **{'class': 'headerlink'})]),
    }
    for k, v in more.items():
        dg.RULES.setdefault(k, v)
    pkg = sys.argv[2]
    if pkg not in dg.RULES:
        sys.exit("docgold-more.py: no rules for %s" % pkg)
    dg.run(pkg, sys.argv[3], sys.argv[4])


if __name__ == '__main__':
    main()
