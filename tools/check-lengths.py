#!/usr/bin/env python3
"""No product function over MAX lines (issue 36), kept by CI (ctest lint_lengths).

    tools/check-lengths.py [--max N] [repo root]     exit 1 with a line per long function

A function is a brace block opened at namespace level (or class level) after a
parenthesised signature; its length runs from the signature's first line to the closing
brace. Lambdas and blocks inside a function count toward the function that holds them.
Strings, character literals and comments are skipped, so braces in them do not count.
"""
import os
import re
import subprocess
import sys

PRODUCT_GLOBS = ["app/*.cpp", "app/*.hpp", "python/src/*.cpp", "python/src/*.hpp", "lib/*.cpp", "lib/*.hpp", "cuda/*.cu", "cuda/*.cuh", "cuda/*.hpp"]
NOT_A_FUNCTION = re.compile(r"^\s*(namespace|struct|class|union|enum|extern\s+\"C\"\s*$)|=\s*$|=\s*\{?$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else)\s*(\(|$)")


def strip_code(text):
    """The text with comments, strings and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            open_paren = text.find("(", i)
            delim = text[i + 2:open_paren]
            j = text.find(")" + delim + '"', open_paren)
            j = n if j < 0 else j + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(path, limit):
    code = strip_code(open(path, encoding="utf-8", errors="replace").read())
    found = []
    stack = []  # the open blocks: (is_function, first line)
    head, head_line = "", 0  # the text since the last ; { or } outside functions, and where it began
    for number, line in enumerate(code.split("\n"), 1):
        if line.lstrip().startswith("#"):
            continue  # preprocessor lines end without a ;
        for ch in line:
            in_function = any(is_function for is_function, _ in stack)
            if ch == "{":
                signature = head.split("(")[0] + "("
                is_function = (not in_function and "(" in head and not NOT_A_FUNCTION.search(head)
                               and not CONTROL.search(signature))
                stack.append((is_function, head_line or number))
                head, head_line = "", 0
            elif ch == "}":
                if stack:
                    is_function, start = stack.pop()
                    if is_function and number - start + 1 > limit:
                        found.append((start, number - start + 1))
                head, head_line = "", 0
            elif ch == ";" and not in_function:
                head, head_line = "", 0
            elif not in_function:
                if not head_line and not ch.isspace():
                    head_line = number
                head += ch
        head += " "
    return found


def self_test():
    """The check must find what it is for: a planted long function, and no short one."""
    import tempfile
    body = lambda n: "".join(f"  x += {i};  // }} {{ \"{{\"\n" for i in range(n - 2))
    text = ("namespace a {\nstruct S {\n  int member(int x) const {\n" + body(81) + "  }\n};\n"
            "int short_one(int x) {\n" + body(80) + "}\n"
            "int with_lambda(int x)\n{\n  auto f = [&] {\n" + body(80) + "  };\n  return f();\n}\n}  // namespace a\n")
    with tempfile.NamedTemporaryFile("w", suffix=".cpp") as f:
        f.write(text)
        f.flush()
        got = [(start, length) for start, length in long_functions(f.name, 80)]
    want = [(3, 81), (165, 84)]  # member() and with_lambda(), its lambda inside it; not short_one()
    if got != want:
        print(f"check-lengths: self-test failed: found {got}, expected {want}")
        return 1
    print("check-lengths: self-test ok")
    return 0


def main(argv):
    limit = 80
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    if len(argv) > 1 and argv[1] == "--max":
        limit = int(argv[2])
        argv = argv[:1] + argv[3:]
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    files = subprocess.run(["git", "ls-files", *PRODUCT_GLOBS], capture_output=True, text=True, check=True).stdout.split()
    bad = 0
    for path in sorted(files):
        for start, length in long_functions(path, limit):
            print(f"check-lengths: {path}:{start}: a function of {length} lines (at most {limit}): split it")
            bad += 1
    if not bad:
        print(f"check-lengths: ok (no function over {limit} lines)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
