"""Random texts of many shapes for tests/cli/test_lines.sh (seeded: the same bytes each run).

usage: lines_corpus.py DIR  -- writes DIR/{mixed,few,nums,csv,nofinal,long,zero}.txt
"""
import os
import random
import sys

R = random.Random(39)
WORDS = [b"apple", b"Apple", b"APPLE", b"banana", b"b", b"", b"zeta", b"\xc3\xa9t\xc3\xa9", b"\xff\xfe", b"a-b", b"a b",
         b"x.y", b"_u", b"~", b"\x7f", b"\x01ctl", b"Mixed42", b"42abc"]
BLANKS = [b" ", b"\t", b"  ", b" \t"]


def number():
    """A number as people and programs write them, or a near miss."""
    sign = R.choice([b"", b"", b"-", b"+", b"--"])
    digits = str(R.choice([0, 1, 7, 42, 999, 1000, 123456789, R.randrange(10 ** R.randrange(1, 25))])).encode()
    zeros = b"0" * R.choice([0, 0, 0, 1, 3])
    frac = R.choice([b"", b"", b".", b".5", b"." + str(R.randrange(10 ** 6)).encode(), b".000"])
    exp = R.choice([b""] * 6 + [b"e3", b"E-2", b"e+10", b"e", b"e999", b"e-999"])
    suffix = R.choice([b""] * 5 + [b"K", b"k", b"M", b"G", b"T", b"P", b"E", b"Z", b"Y", b"R", b"Q", b"Ki", b"x"])
    special = R.choice([None] * 30 + [b"inf", b"-inf", b"nan", b"NaN", b"-0", b"0", b".5", b"-.5", b"1,000", b"0x10",
                                      b"", b"-", b"."])
    if special is not None:
        return special
    return sign + zeros + digits + frac + exp + suffix


def field():
    return R.choice([R.choice(WORDS), number(), bytes(R.randrange(33, 256) for _ in range(R.randrange(0, 6)))])


def fields_line(sep=None):
    parts = [field() for _ in range(R.randrange(1, 6))]
    if sep is not None:
        return sep.join(parts)
    lead = R.choice([b""] * 3 + BLANKS)
    out = lead
    for i, p in enumerate(parts):
        out += (R.choice(BLANKS) if i else b"") + p
    return out + R.choice([b""] * 4 + BLANKS)


def random_bytes_line():
    alphabet = list(range(0x20, 0x7f)) + list(range(0x80, 0x100)) + [9, 13, 1, 0x7f, 0]
    return bytes(R.choice(alphabet) for _ in range(R.choice([0, 1, 2, 5, 20, 60, 200])))


def mixed_line():
    return R.choice([random_bytes_line, fields_line, lambda: fields_line(b","), number, lambda: b""])()


def with_repeats(make, n, repeat=0.3):
    """n lines from make(), some repeated (equal lines, equal keys)."""
    lines = []
    for _ in range(n):
        lines.append(R.choice(lines) if lines and R.random() < repeat else make())
    return lines


def crlf(lines):
    return [l + b"\r" if R.random() < 0.1 else l for l in lines]


def write(path, lines, end=b"\n", final=True):
    data = end.join(lines) + (end if final and lines else b"")
    with open(path, "wb") as f:
        f.write(data)


def main(d):
    write(os.path.join(d, "mixed.txt"), crlf(with_repeats(mixed_line, 15000)))
    keys = [b"k1", b"k2", b" k2", b"K1"]
    write(os.path.join(d, "few.txt"), [R.choice(keys) + b" " + R.choice([b"x", b"y", b"10", b"9"]) for _ in range(20000)])
    write(os.path.join(d, "nums.txt"),
          with_repeats(lambda: number() + R.choice(BLANKS) + number() + b"\t" + R.choice(WORDS), 12000))
    write(os.path.join(d, "csv.txt"), with_repeats(lambda: fields_line(b","), 12000))
    write(os.path.join(d, "nofinal.txt"), crlf(with_repeats(mixed_line, 300)), final=False)
    long_lines = with_repeats(mixed_line, 50) + [b"x" * (1 << 20), b"x" * ((1 << 20) - 1) + b"y", b"a " * 150000]
    R.shuffle(long_lines)
    write(os.path.join(d, "long.txt"), long_lines)
    zero = [l.replace(b"\0", b"") + (b"\n" + field() if R.random() < 0.3 else b"") for l in with_repeats(mixed_line, 12000)]
    write(os.path.join(d, "zero.txt"), zero, end=b"\0")


if __name__ == "__main__":
    main(sys.argv[1])
