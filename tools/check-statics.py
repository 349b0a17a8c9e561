#!/usr/bin/env python3
"""The library keeps no process-wide state past a call (issue 36), kept by
tools/check-library.sh: a mutable variable of static storage in lib/ or cuda/ (one at
namespace scope, a `static` or `thread_local` one in a function or class) is a breach
unless a `// process-wide: WHY` comment marks it, on its line or in the // comment lines
right above it, or it follows on the next line a marked one (a group under one comment):
why it must be (signal safety, a cache of threads that holds no data of a call, a
CUDA-runtime registry).

    tools/check-statics.py ROOT    a line FILE:LINE per breach; exit 1 when any

Simple by design: const, constexpr and __constant__ count as constant (a `const T*`
too), `Foo x(1);` reads as a function declaration, and `extern` declarations are left
to their definitions.
"""
import importlib.util
import os
import re
import sys

_spec = importlib.util.spec_from_file_location("check_lengths", os.path.join(os.path.dirname(__file__), "check-lengths.py"))
_lengths = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lengths)

SOURCES = (".cpp", ".hpp", ".cu", ".cuh", ".h")
MARK = "// process-wide:"
CLASS_HEAD = re.compile(r"^(template\s*<.*>\s*)?(struct|class|union|enum)\b")
FUNCTION_HEAD = re.compile(r"(\)|\})\s*((const|noexcept|override|final|mutable|volatile|&|&&)\s*)*(->.*)?$")
BLOCK_WORDS = {"else", "do", "try"}
NOT_A_VARIABLE = {"using", "typedef", "namespace", "template", "extern", "friend", "static_assert", "return"}
CONSTANT = re.compile(r"\b(const|constexpr|consteval|__constant__)\b")
IGNORED = re.compile(r"\[\[.*?\]\]|\b(alignas|__align__|__launch_bounds__)\s*\([^)]*\)")
SPECIFIERS = re.compile(r"^((static|inline|thread_local|__device__|__managed__|__shared__|constinit)\s+)*")


def block_kind(head):
    """What a { opens after `head`: ns, class, func (a body or a block) or init (a braced initializer)."""
    head = IGNORED.sub("", head).strip()
    if re.match(r"^(inline\s+)?namespace\b", head) or re.match(r'^extern\s*""$', head):
        return "ns"
    if CLASS_HEAD.match(head) and "=" not in head:
        return "class"
    if not head or head.endswith(":") or head in BLOCK_WORDS or FUNCTION_HEAD.search(head):
        return "func"
    return "init"


def mutable_variable(statement, scope):
    """Whether a statement (braced initializers as {}) in a scope declares a mutable static."""
    s = IGNORED.sub("", statement).strip()
    if scope != "ns" and not re.match(r"^(inline\s+)?(static|thread_local)\b", s):
        return False
    s = SPECIFIERS.sub("", s)
    words = re.findall(r"[A-Za-z_]\w*", s)
    if len(words) < 2 or words[0] in NOT_A_VARIABLE:
        return False
    before_value = re.split(r"=|\{", s, 1)[0]
    if "(" in before_value or CONSTANT.search(before_value) or "operator" in words:
        return False  # a function (or `Foo x(1)`), a constant
    if words[0] in ("struct", "class", "union", "enum"):
        return "{" not in s and ":" not in s and len(words) >= 3  # `struct sigaction g_previous;`
    return True


def marked(lines, first, last, marked_ends):
    """Whether a `// process-wide:` comment is on lines first..last (1-based) or right above
    them, or a marked declaration ends on the line above (`marked_ends`)."""
    if first - 1 in marked_ends or any(MARK in lines[i - 1] for i in range(first, last + 1)):
        return True
    i = first - 1
    while i >= 1 and lines[i - 1].strip().startswith("//"):
        if MARK in lines[i - 1]:
            return True
        i -= 1
    return False


def breaches(path):
    """The first lines of the unmarked mutable statics of one source file."""
    text = open(path, encoding="utf-8", errors="replace").read()
    lines = text.split("\n")
    code = "\n".join("" if l.lstrip().startswith("#") else l for l in _lengths.strip_code(text).split("\n"))
    found, marked_ends, stack, statement, start, line, i = [], set(), ["ns"], "", 0, 1, 0
    while i < len(code):
        ch = code[i]
        if ch == "{" and block_kind(statement) == "init":
            depth, j = 0, i
            while j < len(code):  # skipped whole, its lines counted
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                line += code[j] == "\n"
                if depth == 0:
                    break
                j += 1
            statement, i = statement + "{}", j + 1
            continue
        if ch == "{":
            stack.append(block_kind(statement))
        elif ch == "}" and len(stack) > 1:
            stack.pop()
        elif ch == ";" and mutable_variable(statement, stack[-1]):
            if marked(lines, start, line, marked_ends):
                marked_ends.add(line)
            else:
                found.append(start)
        if ch in "{};":
            statement, start = "", 0
        else:
            if not start and not ch.isspace():
                start = line
            statement += " " if ch == "\n" else ch
        line += ch == "\n"
        i += 1
    return found


def main(root):
    bad = 0
    for top in ("lib", "cuda"):
        for folder, _, names in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(n for n in names if n.endswith(SOURCES)):
                path = os.path.join(folder, name)
                for number in breaches(path):
                    print(f"{os.path.relpath(path, root)}:{number}")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
