#!/usr/bin/env python3
"""Independent oracle for the gxsort CLI tests (Python 3 standard library only).

It knows the record formats, builds a sort key per record and lets Python's stable
sorted() order them; it shares no code and no key transform with gxsort.

  oracle.py sort IN -o OUT [FORMAT]            expected output of `gxsort sort`
  oracle.py merge IN... -o OUT [FORMAT]        expected output of `gxsort merge`
                                               (stable: ties by argument order)
  oracle.py dedupe IN -o OUT [FORMAT] [--count] [--keep first|last]
                                               expected output of `gxsort dedupe`: stable
                                               sort, one record per group of equal keys
                                               (first or last in input order); --count
                                               appends the group size as a u64 LE
  oracle.py check IN [FORMAT]                  prints "sorted: yes|no FIRST", "duplicates: D"
                                               exit 0 sorted, 1 not
  oracle.py gen -o OUT --count N --seed S [FORMAT] [--dist D] [--expect EXP]
       D: random (default), dups, special, sorted, reverse, equal, prefix
       sorted/reverse: in the order of FORMAT (reverse: the opposite order)
       --expect EXP also writes the expected sorted output of OUT
  oracle.py selftest

FORMAT: --type u32|u64|i32|i64|f32|f64 (default u64)
      | --record-size N [--key-offset O] (--key-type T | --key-bytes K)
      | --record-size N --key OFFSET:TYPE[:desc] [--key ...]   (a composite key, fields in
        order; TYPE u8 u16 u32 u64 i8 i16 i32 i64 f32 f64, u16be .. f64be, bytes:N)
      | --format gensort
      plus --reverse (the whole key) and --float-order total|numpy (numpy: every NaN
      above every number and all NaNs equal, -0.0 equal to +0.0, as np.sort and np.unique)
"""
import argparse
import random
import struct
import sys

TYPES = {  # name: (width, struct code)
    "u32": (4, "<I"), "u64": (8, "<Q"), "i32": (4, "<i"), "i64": (8, "<q"),
    "f32": (4, "<I"), "f64": (8, "<Q"),  # floats are read as raw bits
    "u8": (1, "<B"), "u16": (2, "<H"), "i8": (1, "<b"), "i16": (2, "<h"),
}


def numpy_float_value(x):
    """numpy's order of the float x as an integer: x * 2**1074 (exact for every finite
    double), infinities beyond that, every NaN one value above +inf; -0.0 is 0."""
    if x != x:
        return 1 << 2101
    if x in (float("inf"), float("-inf")):
        return (1 << 2100) if x > 0 else -(1 << 2100)
    n, d = x.as_integer_ratio()
    return n * ((1 << 1074) // d)


class Field:
    """One key field: offset, type ("bytes" or a TYPES name), width, big-endian, descending,
    and for floats whether numpy's order applies (else IEEE totalOrder)."""
    def __init__(self, off, kt, kb, be=False, desc=False):
        self.off, self.kt, self.kb, self.be, self.desc = off, kt, kb, be, desc
        self.numpy = False

    @staticmethod
    def parse(spec):
        parts = spec.split(":")
        desc = parts[-1] == "desc"
        if parts[-1] in ("desc", "asc"):
            parts = parts[:-1]
        off = int(parts[0])
        if parts[1] == "bytes":
            return Field(off, "bytes", int(parts[2]), False, desc)
        t, be = parts[1], False
        if t.endswith("be"):
            t, be = t[:-2], True
        return Field(off, t, TYPES[t][0], be, desc)

    def value(self, rec):
        """An integer or bytes whose natural ascending order is the field's order."""
        k = rec[self.off:self.off + self.kb]
        if self.kt == "bytes":
            return bytes(255 - b for b in k) if self.desc else k
        v = int.from_bytes(k, "big" if self.be else "little", signed=self.kt[0] == "i")
        if self.numpy:  # the float's value itself, decoded by struct
            x = struct.unpack((">" if self.be else "<") + ("f" if self.kb == 4 else "d"), k)[0]
            v = numpy_float_value(x)
        elif self.kt in ("f32", "f64"):
            # IEEE-754 totalOrder as sign-magnitude integers: the magnitude bits of a
            # float order its absolute values (inf and NaN payloads above all finite
            # numbers); a set sign bit mirrors them below -0.0 (which maps to -1).
            bits = self.kb * 8
            mag = v & ((1 << (bits - 1)) - 1)
            v = -mag - 1 if v >> (bits - 1) else mag
        return -v if self.desc else v


class Fmt:
    def __init__(self, a):
        self.fields = None
        if getattr(a, "key", None):
            if a.record_size is None:
                sys.exit("oracle: --key needs --record-size")
            self.fields = [Field.parse(k) for k in a.key]
            self.rs, self.off, self.kt, self.kb = a.record_size, 0, "composite", 0
        elif a.format:
            if a.format != "gensort":
                sys.exit("oracle: unknown --format " + a.format)
            self.rs, self.off, self.kt, self.kb = 100, 0, "bytes", 10
        elif a.record_size is not None:
            self.rs, self.off = a.record_size, a.key_offset or 0
            if a.key_type:
                self.kt, self.kb = a.key_type, TYPES[a.key_type][0]
            else:
                self.kt, self.kb = "bytes", a.key_bytes
        else:
            t = a.type or "u64"
            self.kt, self.kb, self.rs, self.off = t, TYPES[t][0], TYPES[t][0], 0
        self.reverse = a.reverse
        if self.fields is None:
            self.fields = [Field(self.off, self.kt, self.kb)]
        for f in self.fields:
            f.numpy = getattr(a, "float_order", "total") == "numpy" and f.kt in ("f32", "f64")
            if f.off + f.kb > self.rs:
                sys.exit("oracle: key outside the record")

    def records(self, data):
        if len(data) % self.rs:
            sys.exit("oracle: size %d is not a multiple of %d" % (len(data), self.rs))
        rs = self.rs
        return [data[i:i + rs] for i in range(0, len(data), rs)]

    def order_key(self, rec):
        """A tuple (one item per key field) whose natural order is the key order."""
        return tuple(f.value(rec) for f in self.fields)

    def sort_key(self, rec):
        k = self.order_key(rec)
        if not self.reverse:
            return k
        # Fixed-width keys: complementing every byte reverses lexicographic order.
        return tuple(bytes(255 - b for b in x) if isinstance(x, bytes) else -x for x in k)


def add_format_args(p):
    p.add_argument("--type")
    p.add_argument("--record-size", type=int)
    p.add_argument("--key-offset", type=int)
    p.add_argument("--key-type")
    p.add_argument("--key-bytes", type=int)
    p.add_argument("--format")
    p.add_argument("--reverse", "-r", action="store_true")
    p.add_argument("--key", action="append")
    p.add_argument("--float-order", default="total", choices=("total", "numpy"))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, recs):
    with open(path, "wb") as f:
        f.write(b"".join(recs))


def stable_sorted(fmt, recs):
    # sorted() is stable: equal keys keep their input order, also for --reverse
    # (the reverse is in the key, not sorted(reverse=True)).
    keys = [fmt.sort_key(r) for r in recs]
    order = sorted(range(len(recs)), key=keys.__getitem__)
    return [recs[i] for i in order]


def cmd_sort(a):
    fmt = Fmt(a)
    write(a.output, stable_sorted(fmt, fmt.records(read(a.input[0]))))


def cmd_merge(a):
    fmt = Fmt(a)
    recs = []
    for p in a.input:
        recs.extend(fmt.records(read(p)))
    # A stable sort of the concatenation in argument order is the stable merge of
    # sorted inputs with ties broken by argument order.
    write(a.output, stable_sorted(fmt, recs))


def cmd_dedupe(a):
    fmt = Fmt(a)
    recs = stable_sorted(fmt, fmt.records(read(a.input[0])))
    out = []
    i = 0
    while i < len(recs):
        k = fmt.sort_key(recs[i])
        j = i + 1
        while j < len(recs) and fmt.sort_key(recs[j]) == k:
            j += 1
        rec = recs[j - 1] if a.keep == "last" else recs[i]
        out.append(rec + struct.pack("<Q", j - i) if a.count else rec)
        i = j
    write(a.output, out)


def cmd_check(a):
    fmt = Fmt(a)
    recs = fmt.records(read(a.input[0]))
    keys = [fmt.sort_key(r) for r in recs]
    first = None
    dups = 0
    for i in range(1, len(keys)):
        if keys[i] < keys[i - 1] and first is None:
            first = i
        if keys[i] == keys[i - 1]:
            dups += 1
    print("records: %d" % len(recs))
    print("sorted: yes" if first is None else "sorted: no %d" % first)
    print("duplicates: %d" % dups)
    return 0 if first is None else 1


def special_floats(w):
    """Raw bit patterns of the interesting floats of width w bytes."""
    if w == 4:
        sign, exp_all, man_bits = 1 << 31, 0xFF << 23, 23
        pk = lambda x: struct.unpack("<I", struct.pack("<f", x))[0]
    else:
        sign, exp_all, man_bits = 1 << 63, 0x7FF << 52, 52
        pk = lambda x: struct.unpack("<Q", struct.pack("<d", x))[0]
    man_max = (1 << man_bits) - 1
    quiet = 1 << (man_bits - 1)
    vals = [
        0, sign,                              # +0.0, -0.0
        exp_all, sign | exp_all,              # +inf, -inf
        exp_all | quiet, sign | exp_all | quiet,            # quiet NaNs
        exp_all | 1, sign | exp_all | 1,                    # signalling NaNs, payload 1
        exp_all | man_max, sign | exp_all | man_max,        # NaNs, all payload bits
        exp_all | quiet | 0x5a5, sign | exp_all | quiet | 0x3c,
        1, sign | 1,                          # smallest subnormals
        man_max, sign | man_max,              # largest subnormals
        1 << man_bits, sign | (1 << man_bits),  # smallest normals
        (exp_all - (1 << man_bits)) | man_max, sign | ((exp_all - (1 << man_bits)) | man_max),  # +-max
        pk(1.0), pk(-1.0), pk(1.5), pk(-1.5), pk(0.1), pk(-0.1), pk(1e30), pk(-1e30),
    ]
    return vals


def gen_key_bits(fmt, rnd, dist, pool):
    """Raw key bytes of one record."""
    if fmt.kt == "bytes":
        kb = fmt.kb
        if dist == "dups":
            return pool[rnd.randrange(len(pool))]
        if dist == "prefix":  # long equal prefixes, differences in the last bytes only
            head = pool[rnd.randrange(len(pool))][:max(0, kb - 2)]
            return head + bytes(rnd.choice((0, 1, 127, 128, 255)) for _ in range(kb - len(head)))
        if dist == "equal":
            return pool[0]
        return rnd.getrandbits(8 * kb).to_bytes(kb, "little")
    w, code = TYPES[fmt.kt]
    code = "<I" if w == 4 else "<Q"
    bits = w * 8
    if dist == "dups":
        return pool[rnd.randrange(len(pool))]
    if dist == "equal":
        return pool[0]
    if fmt.kt in ("f32", "f64"):
        r = rnd.random()
        if dist == "special" or r < 0.15:
            if rnd.random() < 0.5:
                return struct.pack(code, rnd.choice(special_floats(w)))
            # a random NaN of either sign with a random non-zero payload
            man_bits = 23 if w == 4 else 52
            exp_all = (0xFF << 23) if w == 4 else (0x7FF << 52)
            v = exp_all | rnd.randrange(1, 1 << man_bits) | (rnd.randrange(2) << (bits - 1))
            return struct.pack(code, v)
        if r < 0.5:  # ordinary numbers of both signs, some duplicated
            x = rnd.choice((rnd.uniform(-1e6, 1e6), float(rnd.randrange(-5, 5)), rnd.gauss(0, 1e-3)))
            return struct.pack("<f" if w == 4 else "<d", x)
        return struct.pack(code, rnd.getrandbits(bits))  # raw bits: anything at all
    # integers: random bits with a share of extremes and duplicates
    r = rnd.random()
    if r < 0.1:
        v = rnd.choice((0, 1, (1 << bits) - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1, (1 << (bits - 1)) + 1))
    elif r < 0.3:
        v = rnd.randrange(-3, 4) % (1 << bits)
    else:
        v = rnd.getrandbits(bits)
    return v.to_bytes(w, "little")


def key_pool(f, rnd):
    """The few values the dups, equal and prefix distributions draw a field from."""
    if f.kt == "bytes":
        pool = [bytes(rnd.randrange(256) for _ in range(f.kb)) for _ in range(7)]
        pool[1] = bytes(f.kb)  # all zero
        pool[2] = bytes([255]) * f.kb
        return pool
    return [gen_key_bits(f, rnd, "random", None) for _ in range(5)]


def cmd_gen(a):
    fmt = Fmt(a)
    rnd = random.Random(a.seed)
    dist = a.dist
    pools = [key_pool(f, rnd) for f in fmt.fields]
    base_dist = "random" if dist in ("sorted", "reverse") else dist
    recs = []
    for i in range(a.count):
        # Payload: the record index (stability is visible), then random bytes.
        rec = bytearray(struct.pack("<Q", i)[:fmt.rs])
        if fmt.rs > 8:
            rec += rnd.getrandbits(8 * (fmt.rs - 8)).to_bytes(fmt.rs - 8, "little")
        for f, pool in zip(fmt.fields, pools):
            # A composite key's first field draws from its few values: later fields decide.
            d = "dups" if len(fmt.fields) > 1 and f is fmt.fields[0] and base_dist == "random" else base_dist
            bits = gen_key_bits(f, rnd, d, pool)
            rec[f.off:f.off + f.kb] = bits[::-1] if f.be else bits
        recs.append(bytes(rec))
    if dist == "sorted":
        recs = stable_sorted(fmt, recs)
    elif dist == "reverse":
        recs = stable_sorted(fmt, recs)[::-1]
    write(a.output, recs)
    if a.expect:
        write(a.expect, stable_sorted(fmt, recs))


def cmd_selftest(_a):
    # The float key against Python's own float order on non-NaN values.
    for w, fc, ic in ((4, "<f", "<I"), (8, "<d", "<Q")):
        class A:
            pass
        a = A()
        a.format = None; a.record_size = None; a.reverse = False
        a.type = "f32" if w == 4 else "f64"
        fmt = Fmt(a)
        vals = [v for v in special_floats(w)]
        rnd = random.Random(5)
        vals += [rnd.getrandbits(w * 8) for _ in range(2000)]
        nonnan = []
        for v in vals:
            x = struct.unpack(fc, struct.pack(ic, v))[0]
            if x == x:
                nonnan.append((x, v))
        for x, v in nonnan:
            for y, u in nonnan[:60]:
                kx, ky = fmt.order_key(struct.pack(ic, v)), fmt.order_key(struct.pack(ic, u))
                if x < y:
                    assert kx < ky, (x, y)
                elif x > y:
                    assert kx > ky, (x, y)
        # NaNs: negative ones below -inf, positive above +inf
        neg_inf = fmt.order_key(struct.pack(fc, float("-inf")))
        pos_inf = fmt.order_key(struct.pack(fc, float("inf")))
        for v in vals:
            x = struct.unpack(fc, struct.pack(ic, v))[0]
            if x != x:
                k = fmt.order_key(struct.pack(ic, v))
                assert (k < neg_inf) if v >> (w * 8 - 1) else (k > pos_inf)
        assert fmt.order_key(struct.pack(fc, -0.0)) < fmt.order_key(struct.pack(fc, 0.0))
        # numpy's order: NaNs of either sign above +inf and equal, -0.0 == +0.0.
        a.float_order = "numpy"
        fmt = Fmt(a)
        floats = [(struct.unpack(fc, struct.pack(ic, v))[0], v) for v in vals]
        nans = [fmt.order_key(struct.pack(ic, v)) for x, v in floats if x != x]
        assert nans and all(k == nans[0] and k > fmt.order_key(struct.pack(fc, float("inf"))) for k in nans)
        assert fmt.order_key(struct.pack(fc, -0.0)) == fmt.order_key(struct.pack(fc, 0.0))
        for x, v in nonnan[:300]:
            for y, u in nonnan[:60]:
                kx, ky = fmt.order_key(struct.pack(ic, v)), fmt.order_key(struct.pack(ic, u))
                assert (kx < ky) == (x < y) and (kx == ky) == (x == y), (x, y)
    # Reverse keeps input order among equal keys.
    class B:
        pass
    b = B()
    b.format = None; b.type = None; b.key_type = None; b.key_offset = 0
    b.record_size = 4; b.key_bytes = 1; b.reverse = True
    fmt = Fmt(b)
    recs = [b"\x01a01", b"\x02b02", b"\x01c03", b"\x02d04"]
    assert stable_sorted(fmt, recs) == [b"\x02b02", b"\x02d04", b"\x01a01", b"\x01c03"]
    print("oracle selftest ok")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("sort", "merge", "check"):
        s = sub.add_parser(name)
        s.add_argument("input", nargs="+")
        if name != "check":
            s.add_argument("-o", "--output", required=True)
        add_format_args(s)
    d = sub.add_parser("dedupe")
    d.add_argument("input", nargs=1)
    d.add_argument("-o", "--output", required=True)
    d.add_argument("--count", action="store_true")
    d.add_argument("--keep", default="first", choices=("first", "last"))
    add_format_args(d)
    g = sub.add_parser("gen")
    g.add_argument("-o", "--output", required=True)
    g.add_argument("--count", type=int, required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--dist", default="random",
                   choices=("random", "dups", "special", "sorted", "reverse", "equal", "prefix"))
    g.add_argument("--expect")
    add_format_args(g)
    sub.add_parser("selftest")
    a = p.parse_args()
    rc = {"sort": cmd_sort, "merge": cmd_merge, "check": cmd_check, "gen": cmd_gen, "dedupe": cmd_dedupe,
          "selftest": cmd_selftest}[a.cmd](a)
    sys.exit(rc or 0)


if __name__ == "__main__":
    main()
