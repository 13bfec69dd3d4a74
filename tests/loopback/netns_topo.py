"""Network-namespace topologies for loopback tests.

Everything created here carries a per-run tag in its name, so parallel runs and
other users of the machine never collide, and teardown removes exactly what was
made. Interface names are at most 15 characters (IFNAMSIZ - 1).
"""
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "netns_peer.py")
PYTHON = "/usr/bin/python3"


def run(argv, check=True, timeout=30):
    """Runs a command; on failure the error carries its output."""
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {p.returncode}: {p.stdout}{p.stderr}")
    return p


def in_ns(ns, argv):
    return ["ip", "netns", "exec", ns] + list(argv)


def run_tag():
    """Short and unique per process: pid modulo 10^5 fits interface names."""
    return f"{os.getpid() % 100000}"


def quiet_link(dev, ns=None):
    """No IPv6 on the link (no RS/MLD/DAD noise) and no segmentation offloads,
    so every frame fits an af_packet frame and is one packet for csumd. TX
    checksum offload stays on: the kernel hands out CHECKSUM_PARTIAL packets."""
    sysctl = ["sysctl", "-q", "-w", f"net.ipv6.conf.{dev}.disable_ipv6=1"]
    ethtool = ["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"]
    run(in_ns(ns, sysctl) if ns else sysctl)
    run(in_ns(ns, ethtool) if ns else ethtool)


def add_namespace(ns):
    run(["ip", "netns", "add", ns])
    run(in_ns(ns, ["ip", "link", "set", "lo", "up"]))
    # Nothing in a test namespace should speak IPv6.
    run(in_ns(ns, ["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"]))
    run(in_ns(ns, ["sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1"]))


def delete_namespace(ns):
    run(["ip", "netns", "del", ns], check=False)


def delete_link(dev):
    run(["ip", "link", "del", dev], check=False)


def nstat(ns, names=("TcpInCsumErrors", "UdpInCsumErrors", "IpInHdrErrors", "TcpExtTCPSynRetrans")):
    """Absolute kernel counters of a namespace. -s keeps nstat's shared history
    file untouched; a fresh namespace starts from zero anyway."""
    out = run(in_ns(ns, ["nstat", "-asz", "--json"] + list(names))).stdout
    counters = json.loads(out)["kernel"]
    return {n: int(counters.get(n, 0)) for n in names}


def link_mac(dev, ns=None):
    argv = ["cat", f"/sys/class/net/{dev}/address"]
    return run(in_ns(ns, argv) if ns else argv).stdout.strip()


class VethBump:
    """Namespaces A and B joined through csumd, a bump in the wire:

        ns A: va (10.77.0.1) <-veth-> va_dp  [csumd port 0 <-> port 1]  vb_dp <-veth-> vb (10.77.0.2) :ns B

    va_dp and vb_dp stay in the root namespace, up and promiscuous, with no
    addresses; csumd opens them as net_af_packet ports."""

    A_IP, B_IP = "10.77.0.1", "10.77.0.2"

    def __init__(self, tag=None):
        tag = tag or run_tag()
        self.ns_a, self.ns_b = f"csumdA{tag}", f"csumdB{tag}"
        self.va, self.vb = f"cva{tag}", f"cvb{tag}"
        self.va_dp, self.vb_dp = f"cva{tag}d", f"cvb{tag}d"

    def vdevs(self, **devargs):
        extra = "".join(f",{k}={v}" for k, v in devargs.items())
        return [f"net_af_packet0,iface={self.va_dp}{extra}", f"net_af_packet1,iface={self.vb_dp}{extra}"]

    def up(self):
        for ns, dev, dp, ip in ((self.ns_a, self.va, self.va_dp, self.A_IP),
                                (self.ns_b, self.vb, self.vb_dp, self.B_IP)):
            add_namespace(ns)
            run(["ip", "link", "add", dp, "type", "veth", "peer", "name", dev])
            quiet_link(dp)
            run(["ip", "link", "set", dp, "promisc", "on", "up"])
            run(["ip", "link", "set", dev, "netns", ns])
            quiet_link(dev, ns)
            run(in_ns(ns, ["ip", "addr", "add", f"{ip}/24", "dev", dev]))
            run(in_ns(ns, ["ip", "link", "set", dev, "up"]))
        return self

    def down(self):
        # Deleting either end of a veth deletes both.
        for dp in (self.va_dp, self.vb_dp):
            delete_link(dp)
        for ns in (self.ns_a, self.ns_b):
            delete_namespace(ns)

    def __enter__(self):
        try:
            return self.up()
        except BaseException:
            self.down()
            raise

    def __exit__(self, *exc):
        self.down()


class TapNamespace:
    """A persistent multi-queue tap made in namespace T before csumd starts;
    csumd, run inside T, attaches to it by name. Made in advance so that it is
    quiet (no IPv6) and addressed before any packet flows.

        ns T: kernel stack 10.78.0.1 <-> tap <-> csumd port 0 (net_tap) <-> port 1 (net_pcap files)

    The tap PMD sets the kernel interface's MAC to its own (mac= devarg), which
    flushes neighbour entries, permanent ones too: call attached() once csumd
    runs."""

    T_IP, PEER_IP = "10.78.0.1", "10.78.0.2"
    T_MAC, PEER_MAC = "02:00:4e:00:00:01", "02:00:4e:00:00:02"

    def __init__(self, tag=None):
        tag = tag or run_tag()
        self.ns, self.tap = f"csumdT{tag}", f"ctap{tag}"

    def vdev(self):
        return f"net_tap0,iface={self.tap},mac={self.T_MAC}"

    def up(self):
        add_namespace(self.ns)
        run(in_ns(self.ns, ["ip", "tuntap", "add", "dev", self.tap, "mode", "tap", "multi_queue"]))
        quiet_link(self.tap, self.ns)
        run(in_ns(self.ns, ["ip", "addr", "add", f"{self.T_IP}/24", "dev", self.tap]))
        # Up (without carrier until csumd attaches), so tcpdump can listen on it beforehand.
        run(in_ns(self.ns, ["ip", "link", "set", self.tap, "address", self.T_MAC, "up"]))
        return self

    def attached(self):
        """The far end is csumd's pcap side, where no one answers ARP."""
        run(in_ns(self.ns, ["ip", "neigh", "replace", self.PEER_IP, "lladdr", self.PEER_MAC,
                            "nud", "permanent", "dev", self.tap]))
        mac = link_mac(self.tap, self.ns)
        if mac != self.T_MAC:
            raise RuntimeError(f"{self.tap} has MAC {mac}, expected the PMD to set {self.T_MAC}")

    def zeroed_frames(self, udp_sizes, udp_port, n_syn, tcp_port):
        """UDP datagrams (payload(size, i) as netns_peer makes them, from source
        port 40000 + i) and TCP SYNs (from 41000 + i) from the pcap side to T,
        every checksum zero: the IPv4 header's too."""
        from scapy.all import IP, TCP, UDP, Ether, Raw
        from netns_peer import payload
        eth = Ether(src=self.PEER_MAC, dst=self.T_MAC)
        ip = IP(src=self.PEER_IP, dst=self.T_IP, chksum=0)
        frames = [bytes(eth / ip / UDP(sport=40000 + i, dport=udp_port, chksum=0) / Raw(payload(size, i)))
                  for i, size in enumerate(udp_sizes)]
        frames += [bytes(eth / ip / TCP(sport=41000 + i, dport=tcp_port, flags="S", seq=1000 * i, chksum=0,
                                        options=[("MSS", 1460)]))
                   for i in range(n_syn)]
        return frames

    def down(self):
        delete_namespace(self.ns)  # takes the tap with it

    def __enter__(self):
        try:
            return self.up()
        except BaseException:
            self.down()
            raise

    def __exit__(self, *exc):
        self.down()


def start_peer(ns, *args):
    """Starts netns_peer.py inside a namespace; waits for its 'ready' line."""
    p = subprocess.Popen(in_ns(ns, [PYTHON, PEER] + [str(a) for a in args]),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()  # a peer that fails to bind exits: EOF, not a hang
    if json.loads(line or "{}").get("ready") is not True:
        p.kill()
        _, err = p.communicate()
        raise RuntimeError(f"peer {args} did not start: {line!r} {err}")
    return p


def finish_peer(p, timeout=30):
    """The peer's final JSON line."""
    out, err = p.communicate(timeout=timeout)
    lines = out.strip().splitlines()
    if not lines:
        raise RuntimeError(f"peer printed nothing (rc {p.returncode}): {err}")
    return json.loads(lines[-1])


def run_peer(ns, *args, timeout=60):
    p = run(in_ns(ns, [PYTHON, PEER] + [str(a) for a in args]), check=False, timeout=timeout)
    lines = p.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"peer {args} printed nothing (rc {p.returncode}): {p.stderr}")
    return json.loads(lines[-1])


def stop(p, sig=signal.SIGTERM, timeout=15):
    """Stops a child we started (by its own pid), killing it if it lingers,
    and closes its pipes. Safe on a child that has already ended."""
    if p is None:
        return
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    for f in (p.stdout, p.stderr):
        if f is not None and not f.closed:
            f.close()


def read_text(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def wait_for_text(path, needle, proc, timeout=20):
    """Polls a child's output file until it holds needle; fails early if the child died."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = read_text(path)
        if needle in text:
            return text
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"no '{needle}' from pid {proc.pid} (rc {proc.poll()}):\n{text}")


class Csumd:
    """One csumd process: started with Popen (optionally inside a namespace),
    stopped with SIGTERM so it prints stats and writes --stats-json."""

    def __init__(self, csumd, eal, workdir, name, vdevs, app_args, ns=None):
        self.out = os.path.join(workdir, f"{name}.out")
        self.stats_json = os.path.join(workdir, f"{name}.json")
        self.verdict_log = os.path.join(workdir, f"{name}.jsonl")
        argv = [csumd] + list(eal)  # csumd line-buffers its stdout itself
        for v in vdevs:
            argv += ["--vdev", v]
        argv += ["--", "--stats-json", self.stats_json, "--verdict-log", self.verdict_log] + list(app_args)
        self.argv = in_ns(ns, argv) if ns else argv
        self.n_ports = len(vdevs)
        self.proc = None

    def start(self):
        with open(self.out, "w") as f:
            self.proc = subprocess.Popen(self.argv, stdout=f, stderr=subprocess.STDOUT)
        # csumd prints this once its workers run.
        deadline = time.monotonic() + 20
        while "csumd: forwarding" not in self.output():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"csumd did not start (rc {self.proc.poll()}):\n{self.output()}")
            time.sleep(0.05)
        return self

    def output(self):
        return read_text(self.out)

    def stop(self):
        """SIGTERM, then the exit code; the stats JSON is written by then."""
        stop(self.proc)
        return self.proc.returncode if self.proc else None

    def stats(self):
        return json.loads(read_text(self.stats_json))

    def verdicts(self):
        return [json.loads(line) for line in read_text(self.verdict_log).splitlines()]


class Capture:
    """tcpdump writing a pcap, inside a namespace; -Q picks the direction."""

    def __init__(self, ns, dev, path, direction="in", bpf=()):
        self.path, self.log = path, path + ".log"
        self.argv = in_ns(ns, ["tcpdump", "-i", dev, "-Q", direction, "-U", "-B", "32768",
                               "-s", "0", "-w", path] + list(bpf))
        self.proc = None

    def start(self):
        with open(self.log, "w") as f:
            self.proc = subprocess.Popen(self.argv, stdout=f, stderr=subprocess.STDOUT)
        wait_for_text(self.log, "listening on", self.proc)
        return self

    def stop(self):
        """Returns tcpdump's 'N packets dropped by kernel' count."""
        stop(self.proc, signal.SIGINT)
        for line in read_text(self.log).splitlines():
            if "dropped by kernel" in line:
                return int(line.split()[0])
        return 0


def main(argv):
    """For scripts/loopback-*.sh:
         netns_topo.py nstat NS                      the counters tests look at, as JSON
         netns_topo.py tap-zeroed-pcap OUT UDP_PORT TCP_PORT   TapNamespace.zeroed_frames as a pcap"""
    if argv[:1] == ["nstat"]:
        print(json.dumps(nstat(argv[1])))
    elif argv[:1] == ["tap-zeroed-pcap"]:
        from scapy.all import Ether, wrpcap
        frames = TapNamespace().zeroed_frames([1, 17, 333, 1000, 1471, 1472], int(argv[2]), 5, int(argv[3]))
        wrpcap(argv[1], [Ether(f) for f in frames])
    else:
        sys.exit(main.__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
