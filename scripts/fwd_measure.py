"""The measuring loop shared by compare-testpmd.sh and compare-offload.sh
(found through PYTHONPATH, which scripts/common.sh sets).

A forwarding program prints a packet counter every second. Each count is
stamped with wall time and the CPU time of the forwarding lcore's thread;
the first sample (start-up) is dropped, and the rest give Mpps over the
window and Mpps per busy core-second, which corrects for other load on a
shared machine."""
import os
import signal
import statistics
import subprocess
import time

HZ = os.sysconf("SC_CLK_TCK")


def cpu_model():
    with open("/proc/cpuinfo") as f:
        return next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")


def worker_cpu(pid):
    """CPU seconds of the EAL worker threads (rte-worker-N): the forwarding lcore."""
    total = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                head, st = f.read().rsplit(")", 1)
            if "worker" in head.split("(", 1)[1]:
                st = st.split()
                total += int(st[11]) + int(st[12])
    except OSError:
        pass
    return total / HZ


def testpmd_port1_tx():
    """A line parser for testpmd --stats-period 1: port 1's TX-packets, else None."""
    in_port1 = False

    def parse(line):
        nonlocal in_port1
        if "NIC statistics for port" in line:
            in_port1 = "port 1 " in line
        elif in_port1 and "TX-packets:" in line:
            in_port1 = False
            return int(line.split("TX-packets:")[1].split()[0])
        return None
    return parse


def sample(cmd, log_path, parse, secs, interrupt=True, env=None, slack=30):
    """Runs cmd, logging its output; parse(line) returns a packet count or None.
    With interrupt, sends SIGINT once the samples span `secs` (programs that
    stop by themselves pass False). Killed `slack` s past the window.
    Returns (exit code, [(wall, count, worker cpu s)], output text)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                         env=env)
    samples, text, deadline = [], [], time.monotonic() + secs + slack
    with open(log_path, "w") as log:
        for line in p.stdout:
            log.write(line)
            text.append(line)
            now = time.monotonic()
            count = parse(line)
            if count is not None:
                samples.append((now, count, worker_cpu(p.pid)))
                if interrupt and len(samples) >= 3 and now - samples[0][0] >= secs - 0.05:
                    p.send_signal(signal.SIGINT)
            if now > deadline:
                p.kill()
    return p.wait(), samples, "".join(text)


def window(samples):
    """{mpps, cpu_share, mpps_per_core_s} over the samples after the first
    (the warm-up); empty with fewer than two left."""
    win = samples[1:] if len(samples) >= 3 else samples
    if len(win) < 2:
        return {}
    (t0, c0, u0), (t1, c1, u1) = win[0], win[-1]
    return {"mpps": (c1 - c0) / (t1 - t0) / 1e6, "cpu_share": (u1 - u0) / (t1 - t0),
            "mpps_per_core_s": (c1 - c0) / (u1 - u0) / 1e6 if u1 > u0 else None}


def interleaved(rows, configs, repeats):
    """(repeat, row, config) in run order: every configuration of a row back to
    back, the order rotated per repeat so drift in load spreads over all."""
    for rep in range(repeats):
        for row in rows:
            k = rep % len(configs)
            for config in configs[k:] + configs[:k]:
                yield rep, row, config


def median(xs):
    return statistics.median(xs) if xs else 0.0
