#!/usr/bin/python3
"""Runs every example of the README and the man pages and compares what it
prints with what the document shows (issue 28: examples that cannot drift).

What counts as an example:
  * in Markdown, a line starting with "$ " inside a fenced block (```sh,
    ```console or a bare ```): the command, continued over lines ending in a
    backslash; the lines after it, up to the next "$ " or the end of the block,
    are what it prints (stdout and stderr together, as on a terminal);
  * in a man page, the same inside .EX/.EE, after groff's escapes are undone;
  * a ```c block whose first line is "/* NAME.c: ..." is written to NAME.c
    before the examples after it run (so that "$ cc NAME.c ..." builds it,
    with pkg-config finding the tree's library);
  * a ```python block with ">>> " prompts runs as a doctest (the names a
    document's blocks define are seen by its later blocks).

A document's examples run in order in one scratch directory of their own, in
which meshes/ is a copy of the tree's meshes/ and "kcbp" (and "./kcbp") the built
program, so that a file one example writes is there for the next. "..." in the
shown output stands for any text (times, paths, long lists), as in doctest's
ELLIPSIS. An example must exit with status 0 unless its shown output is an
error it documents. "$ make" and the like (the build itself) are not run.
Lines without the "$ " prompt are not examples (recipes for other machines,
synopses) and are not run.

Usage: tests/doc_examples.py [--list] [FILE...]
       (default: README.md, python/README.md, docs/*.md, man/*.1)
Environment: KCBP_EXE (the program, default build/kcbp), KCBP_DOC_TIMEOUT
(seconds per example, default 120).
"""
import doctest
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_RUN = ("make", "sudo", "pip", "pip3", "./scripts/setup.sh", "scripts/setup.sh", "apt-get")


class Example:
    def __init__(self, doc, line, kind, text, expected=""):
        self.doc, self.line, self.kind, self.text, self.expected = doc, line, kind, text, expected

    def where(self):
        return f"{os.path.relpath(self.doc, ROOT)}:{self.line}"


def shell_examples(doc, lines):
    """(line number, command, shown output) of the "$ " lines in lines, a list
    of (number, text) of one block."""
    out, i = [], 0
    while i < len(lines):
        n, text = lines[i]
        if not text.startswith("$ "):
            i += 1
            continue
        cmd = text[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd += "\n" + lines[i][1]  # the shell joins the lines
        i += 1
        here = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", cmd)
        if here:  # a here-document: its lines up to the word are the command's
            while i < len(lines):
                cmd += "\n" + lines[i][1]
                i += 1
                if lines[i - 1][1].strip() == here.group(1):
                    break
        shown = []
        while i < len(lines) and not lines[i][1].startswith("$ "):
            shown.append(lines[i][1])
            i += 1
        while shown and not shown[-1].strip():
            shown.pop()
        out.append(Example(doc, n, "sh", cmd, "\n".join(shown)))
    return out


def markdown_examples(doc):
    exs, block, info, start = [], None, "", 0
    with open(doc, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            fence = re.match(r"^(\s*)```(\w*)", line)
            if fence and block is None:
                block, info, start = [], fence.group(2), n
                continue
            if fence and block is not None:
                if info in ("", "sh", "console", "shell"):
                    exs += shell_examples(doc, block)
                elif info == "c":
                    m = re.match(r"/\*\s*([\w.-]+\.c):", block[0][1]) if block else None
                    if m:
                        exs.append(Example(doc, start, "file", "\n".join(t for _, t in block) + "\n", m.group(1)))
                elif info == "python" and any(t.lstrip().startswith(">>> ") for _, t in block):
                    exs.append(Example(doc, start, "python", "\n".join(t for _, t in block) + "\n"))
                block = None
                continue
            if block is not None:
                block.append((n, line))
    return exs


def unroff(s):
    s = s.replace("\\e", "\x00")
    for a, b in (("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\(ga", "`"), ("\\&", ""), ("\\~", " "),
                 ("\\ ", " "), ("\\(em", "\u2014"), ("\\(en", "\u2013"), ("\\(mu", "\u00d7")):
        s = s.replace(a, b)
    return s.replace("\x00", "\\")


def man_examples(doc):
    exs, block = [], None
    with open(doc, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith(".EX"):
                block = []
            elif line.startswith(".EE"):
                exs += shell_examples(doc, block or [])
                block = None
            elif block is not None and not line.startswith((".", "'")):
                block.append((n, unroff(line)))
    return exs


def pattern(shown):
    """A regex for the shown output: "..." is any text, trailing blanks of a
    line do not count."""
    parts = [re.escape(p) for p in "\n".join(l.rstrip() for l in shown.split("\n")).split("...")]
    return re.compile(".*?".join(parts), re.S)


def setup_dir(tmp, exe):
    # a copy, not a link: a scene's meshes must lie inside its folder
    shutil.copytree(os.path.join(ROOT, "meshes"), os.path.join(tmp, "meshes"))
    os.symlink(exe, os.path.join(tmp, "kcbp"))
    bindir = os.path.join(tmp, ".bin")
    os.mkdir(bindir)
    os.symlink(exe, os.path.join(bindir, "kcbp"))
    build = os.path.dirname(os.path.realpath(exe))
    pcdir = os.path.join(tmp, ".pc")
    os.mkdir(pcdir)
    with open(os.path.join(pcdir, "kcbp.pc"), "w") as f:
        f.write("Name: kcbp\nDescription: kcbp of the build tree\nVersion: 1\n"
                f"Cflags: -I{ROOT}/include\n"
                f"Libs: -L{build} -Wl,-rpath,{build} -lkcbp\n")
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("KCBP_") and k != "KCBP_LIBRARY":
            del env[k]
    env.update(PATH=bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin"), LC_ALL="C",
               PKG_CONFIG_PATH=pcdir, PYTHONPATH=os.path.join(ROOT, "python"), COLUMNS="100")
    return env


def run_sh(ex, tmp, env, timeout):
    first = ex.text.split()[0] if ex.text.split() else ""
    if first in NOT_RUN:
        return None, "not run (the build itself)"
    try:
        p = subprocess.run(["bash", "-o", "pipefail", "-c", ex.text], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"did not finish within {timeout} s"
    got = p.stdout.decode("utf-8", "replace").rstrip("\n")
    got = "\n".join(l.rstrip() for l in got.split("\n"))
    if ex.expected and not pattern(ex.expected).fullmatch(got):
        return False, f"shows:\n{indent(ex.expected)}\nprints (exit {p.returncode}):\n{indent(got)}"
    if p.returncode != 0 and not ex.expected:
        return False, f"exits with status {p.returncode}:\n{indent(got)}"
    return True, ""


def run_python(ex, tmp, env, names):
    """Runs the doctest in ex, with the names the document's earlier blocks
    defined, in tmp with env (os.environ's PATH is the examples' too)."""
    parser = doctest.DocTestParser()
    test = parser.get_doctest(ex.text, names, ex.where(), ex.doc, ex.line)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    out = []
    runner = doctest.DocTestRunner(optionflags=flags, verbose=False)
    old_cwd, old_path, old_env = os.getcwd(), list(sys.path), dict(os.environ)
    try:
        os.chdir(tmp)
        sys.path.insert(0, env["PYTHONPATH"])
        os.environ.clear()
        os.environ.update(env)
        runner.run(test, out=out.append, clear_globs=False)
        names.update(test.globs)
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        os.environ.clear()
        os.environ.update(old_env)
    r = runner.summarize(verbose=False)
    return (r.failed == 0), "".join(out)


def indent(s):
    return "\n".join("    " + l for l in s.split("\n"))


def main(argv):
    listing = "--list" in argv
    docs = [a for a in argv if a != "--list"] or [os.path.join(ROOT, d) for d in ("README.md", "python/README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "*.md"))) + sorted(glob.glob(os.path.join(ROOT, "man", "*.1")))
    exe = os.path.abspath(os.environ.get("KCBP_EXE") or os.path.join(ROOT, "build", "kcbp"))
    timeout = float(os.environ.get("KCBP_DOC_TIMEOUT", "120"))
    if not listing and not os.access(exe, os.X_OK):
        print(f"doc_examples: {exe}: no program (run make first)", file=sys.stderr)
        return 2
    passed = failed = 0
    for doc in docs:
        doc = os.path.abspath(doc)
        exs = man_examples(doc) if doc.endswith(".1") else markdown_examples(doc)
        if listing:
            for ex in exs:
                print(f"{ex.where()}: {ex.kind}: {ex.text.splitlines()[0] if ex.text else ''}")
            continue
        tmp = tempfile.mkdtemp(prefix="kcbp-doc-")
        try:
            env = setup_dir(tmp, exe)
            names = {"__name__": "__doc__"}
            for ex in exs:
                if ex.kind == "file":
                    with open(os.path.join(tmp, ex.expected), "w") as f:
                        f.write(ex.text)
                    continue
                print(f"[ RUN      ] {ex.where()}", flush=True)
                if ex.kind == "python":
                    ok, msg = run_python(ex, tmp, env, names)
                else:
                    ok, msg = run_sh(ex, tmp, env, timeout)
                if ok is None:
                    print(f"[     SKIP ] {ex.where()}: {msg}")
                elif ok:
                    passed += 1
                    print(f"[       OK ] {ex.where()}")
                else:
                    failed += 1
                    print(f"[  ERROR   ] {ex.where()}: $ {ex.text}\n{msg}")
                    print(f"[  FAILED  ] {ex.where()}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if listing:
        return 0
    print(f"[==========] doc examples: {passed + failed} test(s) run.")
    print(f"[  PASSED  ] {passed} test(s).")
    if failed:
        print(f"[  FAILED  ] {failed} test(s).")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
