#!/usr/bin/env python3
"""Looks for NVIDIA machine code (ELF cubins) in driver cache files and
disassembles it: the Vulkan driver gives no SASS directly, but its pipeline
cache (vkGetPipelineCacheData, kc's KC_VULKAN_CACHE file) and its own
shader disk cache (__GL_SHADER_DISK_CACHE_PATH) may hold the compiled
programs. Usage: nv-sass.py OUTDIR FILE_OR_DIR...

For every ELF image found (also inside zstd/lz4 frames when the zstd or
lz4 tools are present) it writes OUTDIR/elfN.cubin, runs cuobjdump -sass
and -res-usage on it (nvdisasm as a fallback), writes OUTDIR/elfN.sass and
prints one summary line: registers, instruction counts of HMMA (tensor
cores), LDSM (ldmatrix), LDS/STS (shared), LDG, LDL/STL (local memory:
spills), BAR. Without any ELF it prints what the files begin with."""
import os, re, struct, subprocess, sys


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in sorted(names):
                    yield os.path.join(root, n)
        elif os.path.exists(p):
            yield p


def elves(data):
    """Yields (offset, bytes) of each ELF64 image in data."""
    i = data.find(b"\x7fELF")
    while i >= 0:
        if i + 64 <= len(data) and data[i + 4] == 2:  # ELFCLASS64
            shoff, = struct.unpack_from("<Q", data, i + 0x28)
            shentsize, shnum = struct.unpack_from("<HH", data, i + 0x3A)
            phoff, = struct.unpack_from("<Q", data, i + 0x20)
            phentsize, phnum = struct.unpack_from("<HH", data, i + 0x36)
            end = max(shoff + shentsize * shnum, phoff + phentsize * phnum)
            if 64 <= end <= len(data) - i:
                yield i, data[i:i + end]
        i = data.find(b"\x7fELF", i + 4)


def decompressed(data):
    """Yields data and the output of any zstd frames in it."""
    yield data
    for magic, cmd in ((b"\x28\xb5\x2f\xfd", ["zstd", "-dc"]), (b"\x04\x22\x4d\x18", ["lz4", "-dc"])):
        i = data.find(magic)
        n = 0
        while i >= 0 and n < 64:
            try:
                out = subprocess.run(cmd, input=data[i:], capture_output=True, timeout=20).stdout
                if out:
                    yield out
            except (OSError, subprocess.TimeoutExpired):
                break
            i = data.find(magic, i + 4)
            n += 1


def run(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return r.stdout + r.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)


def summary(sass):
    ops = {}
    for line in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[\w.]+)?", line)
        if m:
            ops[m.group(1)] = ops.get(m.group(1), 0) + 1
    keys = ["HMMA", "LDSM", "LDS", "STS", "LDG", "STG", "LDL", "STL", "BAR", "IMAD", "IADD3", "LEA", "SHF", "MOV", "LOP3", "ISETP", "BRA"]
    total = sum(ops.values())
    return "instructions=%d " % total + " ".join("%s=%d" % (k, ops.get(k, 0)) for k in keys), ops


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    n = 0
    seen = set()
    for f in files(paths):
        data = open(f, "rb").read()
        for blob in decompressed(data):
            for off, elf in elves(blob):
                if elf in seen:
                    continue
                seen.add(elf)
                base = os.path.join(out, "elf%d" % n)
                open(base + ".cubin", "wb").write(elf)
                sass = run(["cuobjdump", "-sass", base + ".cubin"])
                if "HMMA" not in sass and "LDS" not in sass:
                    sass += run(["nvdisasm", "-c", base + ".cubin"])
                res = run(["cuobjdump", "-res-usage", base + ".cubin"])
                open(base + ".sass", "w").write(sass)
                s, ops = summary(sass)
                regs = " ".join(re.findall(r"(?:REG|STACK|SHARED|LOCAL):\d+", res))
                names = " ".join(sorted(set(re.findall(r"Function : (\S+)", sass))))[:200]
                print("SASS %s: from %s @%d, %d bytes: %s %s [%s]" % (base, os.path.basename(f), off, len(elf), regs, s, names))
                n += 1
    if n == 0:
        for f in files(paths):
            data = open(f, "rb").read()
            print("SASS none in %s (%d bytes): %s" % (f, len(data), data[:48].hex()))


main()
