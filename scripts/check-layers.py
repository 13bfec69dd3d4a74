#!/usr/bin/python3
"""Checks that lib/ depends only downward: a file in one concern includes
headers of its own concern or of concerns below it, never above.
Run by ctest (test 'layering'); prints every offending include."""
import os
import re
import sys

# Lower rank = lower layer. Public headers count as their concern's.
RANK = {"simd": 0.5, "crc32c": 1, "inet": 1, "dispatch": 1.5, "mbuf": 2, "parse": 3, "verdict": 3, "nvme_tcp": 4,
        "engine": 5, "capi": 6, "offload": 7, "gen": 8}
PUBLIC = {"export.h": 0, "counter.h": 0, "crc32c.h": 1, "inet.h": 1, "kernels.h": 1.5, "verdict.h": 3,
          "parser_config.h": 3, "nvme_tcp.h": 4, "engine.h": 5, "csum.h": 6}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def rank_of_include(path):
    top = path.split("/")[0]
    if top == "csum":
        return PUBLIC.get(os.path.basename(path))
    return RANK.get(top)


def main(root):
    lib = os.path.join(root, "lib")
    bad = []
    for dirpath, _, files in os.walk(lib):
        rel = os.path.relpath(dirpath, lib).split(os.sep)
        if rel[0] == ".":
            continue
        if rel[0] == "include":
            owner = None  # ranked per file below
        else:
            owner = RANK.get(rel[0])
            if owner is None:
                bad.append(f"lib/{rel[0]}: a concern with no layer (add it to RANK)")
                continue
        for f in files:
            if not f.endswith((".h", ".cpp", ".c")):
                continue
            mine = owner if owner is not None else PUBLIC.get(f)
            if mine is None:
                bad.append(f"lib/include/csum/{f}: a public header with no layer (add it to PUBLIC)")
                continue
            path = os.path.join(dirpath, f)
            with open(path) as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    r = rank_of_include(m.group(1))
                    if r is not None and r > mine:
                        bad.append(f"{os.path.relpath(path, root)}:{n}: includes {m.group(1)}, a layer above")
    for b in bad:
        print(b)
    print(f"layering: {'FAILED' if bad else 'ok'} ({len(bad)} problems)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
