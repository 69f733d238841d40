#!/usr/bin/env python3
"""Checks the repository's Markdown, as `.ci/run` runs it (python3 stdlib only).

usage: python3 scripts/check-docs.py [FILE.md ...]   (default: every tracked *.md)

* Every relative link (`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`,
  `[label]: path` definitions, images) names a file or directory of the
  repository, and an `#anchor` into a Markdown file names one of its headings
  as GitHub spells anchors. A link that leaves the repository (`../shared/...`)
  is an error too: the repository must stand alone, so such documents are
  referred to by name.
* The front README's test command is the one `.ci/run` runs, part by part.

Links inside code (fenced blocks, `code spans`) are not links and are skipped,
as are absolute URLs (`https:`, `mailto:`), which would need the network.
Prints one line per problem, `file:line: what`, and exits 1 if there are any.
"""
import os
import re
import subprocess
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Generated or third-party trees: not ours to check.
SKIP = ("target/", "node_modules/", "fuzz/corpus/", "fuzz/seeds/", "fuzz/artifacts/")
TEST_COMMAND = "bash scripts/test-peers.sh && cargo test --workspace --all-features"

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# An HTML anchor, as the registry pages of `ctywire provider docs` (and
# tfplugindocs) put before each nested schema: GitHub keeps its id.
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"\s*>")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files():
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    return sorted(p for p in out.splitlines() if not p.startswith(SKIP) and "/node_modules/" not in p)


def prose_lines(text, blank_code_spans=True):
    """(line number, line) outside fenced code blocks, code spans blanked
    unless asked to keep them (a heading's anchor includes their text)."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line) if blank_code_spans else line


def github_anchor(heading):
    """GitHub's anchor for a heading: the text without markup, lowercased,
    punctuation but `-` and `_` dropped, spaces turned into `-`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_" or ch == " " or cat[0] in "LN" or cat == "Mn":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


_anchors = {}


def anchors(path):
    """Every anchor of a Markdown file, repeated headings numbered as GitHub
    does, and the ids of HTML anchors."""
    if path not in _anchors:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text, blank_code_spans=False):
            found.update(HTML_ANCHOR.findall(line))
            m = HEADING.match(line)
            if not m:
                continue
            base = github_anchor(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = found
    return _anchors[path]


def check_link(source, n, target):
    if not target or SCHEME.match(target):
        return None
    path, _, anchor = target.partition("#")
    here = os.path.dirname(os.path.join(ROOT, source))
    resolved = os.path.normpath(os.path.join(here, path)) if path else os.path.join(ROOT, source)
    if os.path.relpath(resolved, ROOT).startswith(".."):
        return f"{source}:{n}: {target}: outside the repository (name the document instead of linking it)"
    if not os.path.exists(resolved):
        return f"{source}:{n}: {target}: no such file"
    if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
        return f"{source}:{n}: {target}: no heading with the anchor #{anchor}"
    return None


def check_file(source):
    problems = []
    with open(os.path.join(ROOT, source), encoding="utf-8") as f:
        text = f.read()
    for n, line in prose_lines(text):
        targets = [m.group(1) for m in INLINE.finditer(line)]
        d = DEFINITION.match(line)
        if d:
            targets.append(d.group(1))
        for target in targets:
            problem = check_link(source, n, target)
            if problem:
                problems.append(problem)
    return problems


def check_test_command():
    """The front README's test command and `.ci/run` must not drift apart."""
    problems = []
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        if TEST_COMMAND not in f.read():
            problems.append(f"README.md: the test command `{TEST_COMMAND}` is missing")
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    for part in TEST_COMMAND.split(" && "):
        if part not in ci:
            problems.append(f".ci/run: does not run `{part}`, a part of the README's test command")
    return problems


def main():
    files = sys.argv[1:] or markdown_files()
    problems = []
    for source in files:
        problems += check_file(os.path.relpath(os.path.abspath(source), ROOT) if sys.argv[1:] else source)
    if not sys.argv[1:]:
        problems += check_test_command()
    for p in problems:
        print(p)
    print(f"check-docs: {len(files)} Markdown files, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
