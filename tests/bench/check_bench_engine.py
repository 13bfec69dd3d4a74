"""Runs bench_engine briefly (the main table, --seg-bytes, --chains, --tunnels, --mixed, --drops,
--sizes, --bursts) and checks its tables' shape: every row timed, and DPDK's bare verify beside
every plain TCP/UDP verify row it can judge. No timing is asserted."""
import subprocess
import sys

bench = sys.argv[1]
eal = ["--no-pci", "--no-huge", "-m", "512", "--file-prefix", "bench_engine_smoke", "--"]
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


def rows(args):
    out = subprocess.run([bench, *eal, *args, "--reps", "20", "--rounds", "1"], check=True,
                         timeout=100, capture_output=True, text=True).stdout
    return [ln.split() for ln in out.splitlines()
            if ln and not ln.startswith(("#", "proto", "inner", "mix "))]


plain = ("tcp4", "udp4", "tcp6", "udp6")
main = rows(["--quick"])
check(len(main) >= 40, f"main table: {len(main)} rows")
for f in main:
    name = " ".join(f[:5])
    check(float(f[5]) > 0, name + ": no ticks")
    if f[0] in plain and f[2] == "linear" and f[3] == "verify" and f[4] == "sw":
        check(len(f) == 10 and float(f[8]) > 0, name + ": no DPDK peer")

# Jumbo frames as a scatter-RX PMD leaves them in 2048-B mbufs (9000 B in 5
# segments) beside the same frame linear and in 2 and 4: all four timed, each
# with DPDK's peer (which is 0, and so missing, unless it finds every sum right).
scatter = rows(["--proto", "tcp4", "--size", "9000", "--seg-bytes", "2048", "--mode", "verify",
                "--flags", "sw"])
check([f[2] for f in scatter] == ["linear", "2seg", "4seg", "scatter"],
      f"--seg-bytes: shapes {[f[2] for f in scatter]}")
for f in scatter:
    check(len(f) == 10 and float(f[5]) > 0 and float(f[8]) > 0, " ".join(f[:3]) + ": untimed")

# TCP/UDP over IPv4 and IPv6, SCTP with 1 and 4 chunks, VXLAN and GENEVE
# over IPv4, VXLAN over IPv6, at 3 sizes each.
chains = rows(["--chains"])
check(len(chains) == 27, f"--chains: {len(chains)} rows")
for f in chains:
    name = " ".join(f[:4])
    check(all(float(x) > 0 for x in f[4:9]), name + ": a row untimed")
    if f[0] in plain:
        # DPDK 22.11 misjudges odd-position segments (1420 B in 4 x 355 B) only.
        peers = f[9:]
        check(len(peers) == 3 and all(p != "-" for p in peers[: 3 if f[1] != "1420" else 2]),
              name + f": DPDK peer missing {peers}")
    else:
        check(len(f) == 9, name + ": a DPDK peer for SCTP or a tunnel")

# VXLAN and GENEVE over IPv4, VXLAN over IPv6, each beside plain TCP of its
# inner size, and the walker: 2 inner sizes x (verify, csum) x (sw, good) + fill.
tunnels = rows(["--tunnels"])
check(len(tunnels) == 10, f"--tunnels: {len(tunnels)} rows")
for f in tunnels:
    check(len(f) == 11 and all(float(x) > 0 for x in f[3:]), " ".join(f[:3]) + ": a row untimed")

# Mixed bursts: 11 mixes x 2 sizes x (sw, good); DPDK's peer beside the
# software-sum rows of the TCP/UDP-only mixes; fill mode: one row a mix and size.
mixed = rows(["--mixed"])
check(len(mixed) == 44, f"--mixed: {len(mixed)} rows")
for f in mixed:
    name = " ".join(f[:3])
    check(all(float(x) > 0 for x in f[3:6]), name + ": a row untimed")
    tcp_udp_only = "vxlan" not in f[0] and "sctp" not in f[0]
    check(len(f) == (7 if tcp_udp_only and f[2] == "sw" else 6), name + ": DPDK peer column")
mixed_fill = rows(["--mixed", "--mode", "fill"])
check(len(mixed_fill) == 22 and all(f[2] == "fill" for f in mixed_fill),
      f"--mixed --mode fill: {len(mixed_fill)} rows")

# Bursts with drops: 5 kinds x 2 sizes x (sw, good); five bursts timed, each
# but the clean one beside its ratio to it.
drops = rows(["--drops"])
check(len(drops) == 20, f"--drops: {len(drops)} rows")
for f in drops:
    name = " ".join(f[:3])
    check(len(f) == 12 and all(float(x) > 0 for x in f[3:]), name + ": a burst untimed")

# Mixed sizes: 5 protocols x 4 size mixes x (verify, fill); DPDK's peer
# beside the TCP/UDP verify rows.
sizes = rows(["--sizes"])
check(len(sizes) == 40, f"--sizes: {len(sizes)} rows")
for f in sizes:
    name = " ".join(f[:3])
    check(len(f) == 8 and all(float(x) > 0 for x in f[3:6]), name + ": a row untimed")
    has_peer = f[0] in plain and f[2] == "verify"
    check((f[6] != "-") == has_peer, name + ": DPDK peer column")

# Short bursts: 4 protocols x 2 sizes x (verify, csum) x (sw, good) x 6 burst
# sizes; DPDK's peer beside the sw rows; the last column relative to n = 32.
bursts = rows(["--bursts"])
check(len(bursts) == 192, f"--bursts: {len(bursts)} rows")
for f in bursts:
    name = " ".join(f[:5])
    check(len(f) == 9 and float(f[5]) > 0 and float(f[8]) > 0, name + ": untimed")
    check((f[6] != "-") == (f[3] == "sw"), name + ": DPDK peer column")
    if f[4] == "32":
        check(f[8] == "1.00", name + ": not its own reference")

for m in fails:
    print("FAIL:", m)
print("bench_engine smoke:", "FAILED" if fails else "ok",
      f"({len(main)} + {len(scatter)} + {len(chains)} + {len(tunnels)} + {len(mixed)} + {len(mixed_fill)}"
      f" + {len(drops)} + {len(sizes)} + {len(bursts)} rows)")
sys.exit(1 if fails else 0)
