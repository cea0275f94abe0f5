#!/usr/bin/env python3
"""resident-pages.py BINARY CONFIG [--seconds N] [--sum NAME=REGEX ...]

Which pages of a collector's executable an idle process holds in RSS (docs/benchmarks.md).
Drops BINARY from the page cache (as bench/e2e does before every run), runs it under CONFIG
for N seconds (default 10), reads /proc/<pid>/pagemap for the binary's mappings and attributes
the resident pages to ELF sections (readelf -S) and to Go packages (go tool nm -size), so
BINARY must keep its symbols: build it with the same flags as `make build` but without
-ldflags='-s -w'. Each --sum prints the resident bytes of the packages matching REGEX.
"""
import argparse, collections, os, re, struct, subprocess, time

ap = argparse.ArgumentParser()
ap.add_argument("binary")
ap.add_argument("config")
ap.add_argument("--seconds", type=float, default=10)
ap.add_argument("--sum", action="append", default=[], metavar="NAME=REGEX")
args = ap.parse_args()

fd = os.open(args.binary, os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)
proc = subprocess.Popen([args.binary, "--config=" + args.config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    time.sleep(args.seconds)
    if proc.poll() is not None:
        raise SystemExit(f"{args.binary} exited with {proc.returncode} before {args.seconds} s")
    status = open(f"/proc/{proc.pid}/status").read()
    real = os.path.realpath(args.binary)
    resident = set()  # addresses of resident file pages of the binary
    with open(f"/proc/{proc.pid}/pagemap", "rb") as pagemap:
        for line in open(f"/proc/{proc.pid}/maps"):
            f = line.split()
            if len(f) < 6 or f[5] != real:
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            pagemap.seek(lo // 4096 * 8)
            entries = pagemap.read((hi - lo) // 4096 * 8)
            for i in range((hi - lo) // 4096):
                (e,) = struct.unpack_from("<Q", entries, i * 8)
                if e >> 63 & 1 and e >> 61 & 1:  # present, and a file page
                    resident.add(lo + i * 4096)
finally:
    proc.terminate()
    proc.wait()

mib = lambda b: f"{b / 2**20:.2f} MiB"
for k in ("VmHWM", "RssAnon", "RssFile"):
    print(re.search(k + r":\s+\d+ kB", status).group(0))
print("resident pages of the executable:", mib(len(resident) * 4096))

def resident_bytes(lo, hi):
    n, page = 0, lo & ~4095
    while page < hi:
        if page in resident:
            n += min(hi, page + 4096) - max(lo, page)
        page += 4096
    return n

elf = subprocess.run(["readelf", "-SW", args.binary], capture_output=True, text=True, check=True).stdout
for m in re.finditer(r"\]\s+(\.\S+)\s+\S+\s+([0-9a-f]{16})\s+[0-9a-f]+\s+([0-9a-f]+)", elf):
    name, addr, size = m.group(1), int(m.group(2), 16), int(m.group(3), 16)
    if name in (".text", ".rodata", ".gopclntab", ".noptrdata", ".data"):
        print(f"  {name}: {mib(resident_bytes(addr, addr + size))} of {mib(size)}")

def package(symbol):
    for prefix in ("go:itab.", "type:", "go:"):
        symbol = symbol.removeprefix(prefix)
    symbol = symbol.lstrip("*")
    dot = symbol.find(".", symbol.rfind("/") + 1)
    return symbol[:dot] if dot > 0 else symbol

by_package = collections.Counter()
nm = subprocess.run(["go", "tool", "nm", "-size", args.binary], capture_output=True, text=True, check=True).stdout
for line in nm.splitlines():
    f = line.split(None, 3)
    if len(f) == 4 and f[1].isdigit() and int(f[1]) > 0:
        addr, size = int(f[0], 16), int(f[1])
        by_package[package(f[3])] += resident_bytes(addr, addr + size)
print("symbols in resident pages, by package:", mib(sum(by_package.values())))
for spec in args.sum:
    name, _, regex = spec.partition("=")
    print(f"  {name}: {mib(sum(v for k, v in by_package.items() if re.search(regex, k)))}")
