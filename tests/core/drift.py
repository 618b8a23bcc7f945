#!/usr/bin/env python3
"""drift.py: names and docs that cannot drift from the tree (run by tests/core/test_drift.sh).

Usage: drift.py ROOT [GPUVET]. Prints a PASS line per rule kept and a FAIL line per place that
breaks one, then exits 0 (the shell test counts the lines). The rules:

  headers    every .c, .h and .cu file under src/, tests/ and fuzz/ opens with a comment whose
             first word is its own name: "/* nes_video.h: ...".
  guards     every header under src/ is guarded by its own path: src/emu/nes/nes_video.h by
             #ifndef GV_EMU_NES_NES_VIDEO_H and #define GV_EMU_NES_NES_VIDEO_H.
  qualifiers the host/device and inlining macros (a #define of a name ending in _HD or INLINE)
             are defined in one place, src/core/hd.h (docs/BUILD.md "Device code").
  doc paths  every path written in README.md, tests/README.md and docs/*.md (src/..., tests/...,
             bench/..., scripts/..., docs/..., fuzz/..., or a folder of src/ such as
             emu/common/console.h) is a file or folder of the tree, and every bare source name
             (x.c, x.h, x.cu, x.py, x.sh) is the name of one. `*` and placeholders such as
             <console> match any text; a path under a git-ignored folder (tests/data/, fetched
             by a script) passes.
  comments   the same for the paths and source names written in the comments of every .c, .h
             and .cu file under src/, tests/ and fuzz/; a name in double quotes is data, a name
             in <...> a system header, and the few files of other projects that comments name
             on purpose are listed in EXTERNAL below.
  readme     the README's map of the tree has a line for every top-level folder and names every
             folder under src/; each console's line names its console file and, when it has
             one, its device renderer (<console>_gpu.cu); the docs/ line names every docs/*.md
             and the scripts/ line every file of scripts/; tests/README.md names every folder
             of tests/; the README's table of commands and `gpuvet --help` list the same
             commands (given GPUVET).
"""
import fnmatch
import os
import re
import subprocess
import sys

# Files of other projects that our comments and docs name on purpose (the name, whose it is).
EXTERNAL = {
    "ggml-backend.h": "ggml",
    "ggml-backend-impl.h": "ggml",
}
SOURCE_EXT = (".c", ".h", ".cu")
# A bare source name; one that starts with "_" or "." (`_audio.h` after `<console>_video.h`,
# "every `.cu` file") is a suffix, not a name.
NAME = re.compile(r"(?:[A-Za-z0-9*]|<\w+>)(?:[\w.*-]|<\w+>)*\.(?:c|h|cu|py|sh)")
TOP_DIRS = ("src", "tests", "bench", "scripts", "docs", "fuzz")

# A piece of a path: word characters, dots, dashes, `*`, and placeholders such as <console>.
PIECE = r"(?:[\w.*-]|<\w+>)+"
TOKEN = re.compile(r"(?<![\w./:<\"'*$%-])(" + PIECE + r"(?:/" + PIECE + r")*/?)(?![\w>-])")


class Tree:
    """The files and folders of the tree under root, less what .gitignore leaves out."""

    def __init__(self, root):
        self.root = root
        self.ignore = []
        try:
            with open(os.path.join(root, ".gitignore")) as f:
                for line in f:
                    line = line.strip()
                    if line and not line.startswith("#") and not line.startswith("!"):
                        self.ignore.append(line)
        except OSError:
            pass
        self.files, self.dirs = set(), set()
        for d, subdirs, names in os.walk(root):
            rel = os.path.relpath(d, root)
            rel = "" if rel == "." else rel
            subdirs[:] = sorted(s for s in subdirs if s != ".git" and not self.ignored(os.path.join(rel, s)))
            for s in subdirs:
                self.dirs.add(os.path.join(rel, s))
            for n in names:
                p = os.path.join(rel, n)
                if not self.ignored(p):
                    self.files.add(p)
        self.names = {os.path.basename(p) for p in self.files}
        self.src_dirs = {p.split("/")[1] for p in self.dirs if p.startswith("src/")}
        self.sys_headers = set()
        for p in self.files:
            if p.endswith(SOURCE_EXT):
                for m in re.finditer(r"#\s*include\s*<([^>]+)>", read(os.path.join(root, p))):
                    self.sys_headers.add(m.group(1))
                    self.sys_headers.add(os.path.basename(m.group(1)))

    def ignored(self, path):
        """Whether .gitignore leaves path out (its simple patterns: name globs, /anchored/ paths;
        a pattern of folders, "x/", is taken for a file of that name too)."""
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            for pat in self.ignore:
                p = pat.rstrip("/")
                if p.startswith("/"):
                    if fnmatch.fnmatchcase(prefix, p[1:]):
                        return True
                elif fnmatch.fnmatchcase(parts[i - 1], p):
                    return True
        return False

    def exists(self, path):
        """Whether path (a glob where it holds * or <placeholder>) names files or folders of the tree."""
        path = path.rstrip("/")
        glob = re.sub(r"<\w+>", "*", path)
        if "*" not in glob:
            return glob in self.files or glob in self.dirs or self.ignored(glob)
        return any(fnmatch.fnmatchcase(p, glob) for p in self.files | self.dirs)

    def name_exists(self, name):
        glob = re.sub(r"<\w+>", "*", name)
        if "*" not in glob:
            return glob in self.names
        return any(fnmatch.fnmatchcase(n, glob) for n in self.names)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def comments(text):
    """(line, text) of each /* */ and // comment of C source, skipping string and char literals."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            out.append((text.count("\n", 0, i) + 1, text[i + 2:j]))
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((text.count("\n", 0, i) + 1, text[i + 2:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def references(tree, text, here):
    """(offset, token, found) for each path or source name in text that names a thing of our tree:
    a path whose first folder is a top-level folder, a folder of src/ or one beside the file
    (here: the file's folder), or a bare name ending in a source extension."""
    out = []
    for m in TOKEN.finditer(text):
        tok = m.group(1).rstrip(".")
        if "/" in tok.rstrip("/"):
            first = tok.split("/")[0]
            cands = []
            if first in TOP_DIRS:
                cands.append(tok)
            if first in tree.src_dirs:
                cands.append("src/" + tok)
            if here and os.path.join(here, first) in tree.dirs:
                cands.append(os.path.join(here, tok))
            if not cands:
                continue
            out.append((m.start(1), tok, any(tree.exists(c) for c in cands)))
        elif NAME.fullmatch(tok):
            if tok in EXTERNAL or tok in tree.sys_headers:
                continue
            out.append((m.start(1), tok, tree.name_exists(tok)))
    return out


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def sources(tree):
    return sorted(p for p in tree.files if p.split("/")[0] in ("src", "tests", "fuzz") and p.endswith(SOURCE_EXT))


def check_headers(tree):
    fails, files = [], sources(tree)
    for p in files:
        first = read(os.path.join(tree.root, p)).split("\n", 1)[0]
        name = os.path.basename(p)
        if not first.startswith("/* " + name + ": "):
            m = re.match(r"/\*+\s*(\S+)", first)
            said = 'with "%s"' % m.group(1) if m else "with no comment"
            fails.append('%s:1 opens %s, not "/* %s: ..."' % (p, said, name))
    return fails, "%d source files under src/, tests/ and fuzz/ open with a comment that starts with their own name" % len(files)


def check_guards(tree):
    fails, files = [], [p for p in sources(tree) if p.startswith("src/") and p.endswith(".h")]
    for p in files:
        want = "GV_" + re.sub(r"[/.]", "_", p[len("src/"):]).upper()
        m = re.search(r"^#\s*ifndef\s+(\w+)\s*\n#\s*define\s+(\w+)", read(os.path.join(tree.root, p)), re.M)
        if not m or m.group(1) != want or m.group(2) != want:
            got = "%s / %s" % (m.group(1), m.group(2)) if m else "no #ifndef X / #define X"
            fails.append("%s is guarded by %s, not %s" % (p, got, want))
    return fails, "%d headers under src/ are guarded by their own path (GV_<PATH>_H)" % len(files)


def check_qualifiers(tree):
    fails, n = [], 0
    for p in sources(tree):
        if not p.startswith("src/"):
            continue
        for i, line in enumerate(read(os.path.join(tree.root, p)).split("\n"), 1):
            m = re.match(r"\s*#\s*define\s+(\w*(?:_HD|INLINE))\b", line)
            if m:
                n += 1
                if p != "src/core/hd.h":
                    fails.append("%s:%d defines %s: the host/device and inlining macros live in src/core/hd.h" % (p, i, m.group(1)))
    return fails, "the %d definitions of host/device and inlining macros are all in src/core/hd.h" % n


def docs(tree):
    return ["README.md", "tests/README.md"] + sorted(p for p in tree.files if re.fullmatch(r"docs/[^/]+\.md", p))


def check_doc_paths(tree):
    fails, n, ds = [], 0, [d for d in docs(tree) if d in tree.files]
    for d in ds:
        text = read(os.path.join(tree.root, d))
        for off, tok, ok in references(tree, text, os.path.dirname(d)):
            n += 1
            if not ok:
                fails.append("%s:%d names %s, which is %s" % (d, line_of(text, off), tok,
                             "no file or folder of the tree" if "/" in tok else "the name of no file of the tree"))
    return fails, "%d paths and file names written in %d docs (%s) name files and folders of the tree" % (
        n, len(ds), ", ".join(os.path.basename(d) if d.startswith("docs/") else d for d in ds[:3]) + ", ...")


def check_comments(tree):
    fails, n, files = [], 0, sources(tree)
    for p in files:
        for ln, c in comments(read(os.path.join(tree.root, p))):
            for off, tok, ok in references(tree, c, os.path.dirname(p)):
                if ln == 1 and off == 1:
                    continue  # the name the file opens with: the headers rule's
                n += 1
                if not ok:
                    fails.append("%s:%d: a comment names %s, which is %s" % (p, ln + c.count("\n", 0, off), tok,
                                 "no file or folder of the tree" if "/" in tok.rstrip("/") else "the name of no file of the tree"))
    return fails, "%d paths and file names in the comments of %d source files name files and folders of the tree" % (n, len(files))


def block_after(text, heading):
    """The lines of the first ``` block after the line heading."""
    lines = text.split("\n")
    try:
        i = lines.index(heading)
    except ValueError:
        return None
    while i < len(lines) and not lines[i].startswith("```"):
        i += 1
    j = i + 1
    while j < len(lines) and not lines[j].startswith("```"):
        j += 1
    return lines[i + 1:j]


def map_entries(block):
    """{folder: the text of its entry} of the README's tree map (an entry: a line that starts
    with a folder, and the indented lines after it)."""
    entries, cur = {}, None
    for line in block:
        if line and not line[0].isspace():
            cur = line.split()[0].rstrip("/")
            entries[cur] = line
        elif cur:
            entries[cur] += " " + line.strip()
    return entries


def help_commands(gpuvet):
    out = subprocess.run([gpuvet, "--help"], capture_output=True, text=True).stdout
    cmds, on = [], False
    for line in out.split("\n"):
        if line.startswith("commands:"):
            on = True
        elif on and line.startswith("  "):
            words = line.split("  ")[1].split()
            cmds.append(" ".join(words[:2]) if words[0] == "bench" else words[0])
        elif on:
            on = False
    return cmds


def check_readme(tree, gpuvet):
    fails, said = [], []
    text = read(os.path.join(tree.root, "README.md"))
    block = block_after(text, "## The tree")
    if block is None:
        return ["README.md has no section \"## The tree\" with the map of the tree"], ""
    entries = map_entries(block)
    whole = "\n".join(block)
    top = sorted(d for d in tree.dirs if "/" not in d and not d.startswith(".") and d != "src")
    for d in top:
        if d not in entries:
            fails.append("README.md's map of the tree has no line for the folder %s/" % d)
    srcdirs = sorted(d for d in tree.dirs if d.startswith("src/"))
    for d in srcdirs:
        if not re.search(r"(?<![\w/])" + re.escape(d) + r"/", whole):
            fails.append("README.md's map of the tree does not name the folder %s/" % d)
    consoles = sorted(d for d in tree.dirs if re.fullmatch(r"src/emu/[^/]+", d) and d != "src/emu/common")
    for d in consoles:
        c = d.split("/")[-1]
        entry = entries.get(d, "")
        for f in (c + "_console.c", c + "_gpu.cu"):
            if os.path.join(d, f) in tree.files and f not in entry:
                fails.append("README.md's map line of %s/ does not name %s (%s)" % (
                    d, f, "its console" if f.endswith("_console.c") else "its device renderer"))
    for d, ok in (("docs", lambda f: f.endswith(".md")), ("scripts", lambda f: True)):
        entry = entries.get(d, "")
        words = set(re.findall(r"[\w.*-]+", entry))
        for f in sorted(p for p in tree.files if os.path.dirname(p) == d and ok(p)):
            name = os.path.basename(f)
            stem = name[:-3] if d == "docs" else name
            if stem not in words and not any("*" in w and fnmatch.fnmatchcase(stem, w) for w in words):
                fails.append("README.md's map line of %s/ does not name %s" % (d, f))
    said.append("the map of the tree names the %d top-level folders, the %d folders of src/, each console's "
                "console file and device renderer, every doc and every script" % (len(top), len(srcdirs)))
    ttext = read(os.path.join(tree.root, "tests/README.md"))
    tdirs = sorted(d for d in tree.dirs if re.fullmatch(r"tests/[^/]+", d))
    for d in tdirs:
        if not re.search(r"`(?:tests/)?" + re.escape(d.split("/")[1]) + r"/", ttext):
            fails.append("tests/README.md does not name the folder %s/" % d)
    said.append("tests/README.md names the %d folders of tests/" % len(tdirs))
    if gpuvet:
        rows = [l for l in text.split("\n") if l.startswith("| `")]
        spans = []
        for r in rows:
            for s in re.findall(r"`([^`]+)`", r.split("|")[1]):
                if not s.startswith("make "):
                    spans.append(re.sub(r"^gpuvet ", "", s).split())
        cmds = help_commands(gpuvet)
        for c in cmds:
            if not any(s[:len(c.split())] == c.split() for s in spans):
                fails.append("README.md's table of commands has no row for `gpuvet %s`, which `gpuvet --help` lists" % c)
        for s in spans:
            if not any(s[:len(c.split())] == c.split() for c in cmds):
                fails.append("README.md's table of commands shows `gpuvet %s`, which `gpuvet --help` does not list" % " ".join(s))
        said.append("its table of commands and `gpuvet --help` list the same %d commands" % len(cmds))
    return fails, "README.md: " + "; ".join(said)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    gpuvet = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    tree = Tree(root)
    for name, check in (("headers", check_headers), ("guards", check_guards), ("qualifiers", check_qualifiers), ("doc paths", check_doc_paths), ("comments", check_comments),
                        ("readme", lambda t: check_readme(t, gpuvet))):
        fails, what = check(tree)
        for f in fails:
            print("FAIL drift %s: %s" % (name, f))
        if not fails:
            print("PASS drift %s: %s" % (name, what))
        else:
            print("FAIL drift %s: %d place%s above" % (name, len(fails), "" if len(fails) == 1 else "s"))
    if not gpuvet:
        print("SKIP drift commands: no gpuvet binary given (GPUVET): the README's table of commands is not compared with `gpuvet --help`")


if __name__ == "__main__":
    main()
