"""Runs compare-testpmd.sh --quick (testpmd at --burst=16) and checks every
configuration ran, produced a rate, and that csumd judged every packet it
forwarded. No timing is asserted."""
import json
import os
import subprocess
import sys

script, out = sys.argv[1], sys.argv[2]
subprocess.run([script, "--quick", "--testpmd-burst", "16", "--out", out], check=True, timeout=170)
doc = json.load(open(os.path.join(out, "compare.json")))
fails = []
for r in doc["runs"]:
    name = f'{r["row"]} {r["config"]}'
    if r["rc"] != 0:
        fails.append(f'{name}: exit {r["rc"]}')
    if not r.get("mpps", 0) > 0:
        fails.append(f"{name}: no rate ({r['samples']} samples)")
    if r["config"] in ("csumd-verify", "csumd-csum") and r.get("l4_good", 0) < r.get("engine_packets", 1):
        fails.append(f"{name}: not every packet verified good")
configs = {r["config"] for r in doc["runs"]}
if len(configs) != 6:
    fails.append(f"configs: {sorted(configs)}")
md = open(os.path.join(out, "compare.md")).read()
if not md:
    fails.append("empty compare.md")
if doc["summary"].get("testpmd_burst") != 16 or "testpmd ran with --burst=16" not in md:
    fails.append(f"testpmd burst not recorded: {doc['summary'].get('testpmd_burst')}")
print("\n".join(fails) or "ok")
sys.exit(1 if fails else 0)
