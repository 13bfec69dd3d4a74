"""Random traffic of the shapes test_random_traffic.py leaves out
(wide_shapes.py: tags, options, extension headers, fragments, more tunnels,
absent and trimmed UDP sums, trailers, tiny and boundary lengths, sums at
the 0x0000/0xFFFF edge), in runs of one shape, then a mixed stretch where
no two neighbours share one; 2-KiB, 256-B and 257-B mbufs (the last ends
segments at odd offsets). scapy is the judge: fill must write its bytes;
verify must give each layer the status docs/verdict-log.md promises, and
ip_summed/csum_level to match; csum must fill what a sender left partial
(and illegal zero sums) and leave everything else as it came. tshark checks
scapy. CSUM_WIDE_SEED overrides the seed.

What csumd does and this holds it to: fill computes an absent UDP/IPv4 sum,
csum leaves it absent (status zero) but fills a zero one over IPv6
(illegal); TCP/UDP/ICMPv6 behind a type 0 or unknown routing header with
segments left, or in a first fragment, are unverifiable and never filled;
a source route under way (and a type 2/4 routing header with segments
left) gives the pseudo-header its final destination; a UDP length short of
the IP payload is what the sum covers; trailers are never summed."""
import os
import random
import unittest
from collections import Counter

import test_random_traffic as base
from csumd_run import TS_BAD, tshark_layers, tmpdir, write_pcap
from test_engine_verdicts import read_pcap_frames
import wide_shapes as ws
from wide_shapes import fold, frames, rbytes

SEED = int(os.environ.get("CSUM_WIDE_SEED", "20261204"))
MBUF_SIZES = (2048, 256, 257)
ENCLOSING = ("tcp", "udp", "gre")  # Internet sums over every layer inside them
COUNTING = ("tcp", "udp", "gre", "sctp")  # for csum_level


def zero_udp(frame, f):
    return ws.zero_udp(frame.good, f)


def expected(frame, damaged=None, partial=(), mode="verify", carried=False):
    """The status of each layer, and (ip_summed, csum_level). carried: the
    sums around the damaged one were made to cover it."""
    st = []
    for i, f in enumerate(frame.fields):
        s = f.fixed or ("good" if i not in partial and mode != "fill" else
                        "partial" if mode == "verify" else "filled")
        if s == "good" and zero_udp(frame, f):
            s = ("filled" if mode == "csum" else "illegal") if f.v6 else "zero"
        st.append(s)
    if damaged is not None:
        st[damaged] = "bad"
        for j in range(damaged):  # the sums around it cover the changed byte
            if frame.fields[j].proto in ENCLOSING and st[j] == "good" and not carried:
                st[j] = "bad"
        if frame.fields[damaged].proto == "ipv4":
            st[damaged + 1:] = ["unverifiable"] * (len(st) - damaged - 1)
    if "partial" in st and not {"bad", "illegal"} & set(st):
        return st, ("CHECKSUM_PARTIAL", 0)
    level, counting = 0, True
    for f, s in zip(frame.fields, st):
        if counting and f.proto == "ipv4":
            counting = s in ("good", "filled")
        elif counting and f.proto in COUNTING:
            counting = s in ("good", "zero", "filled")
            level += counting
    return st, ("CHECKSUM_UNNECESSARY", min(level - 1, 3)) if level else ("CHECKSUM_NONE", 0)


def put16(b, frame, i, value):
    """Writes field i and carries the change into the sums around it (RFC
    1624 eqn. 3), those around them in turn, as a sender's stack would."""
    f = frame.fields[i]
    old = bytes(b[f.off:f.off + 2])
    b[f.off:f.off + 2] = value.to_bytes(2, "big")
    for j in reversed(range(i)):
        o = frame.fields[j]
        held = bytes(b[o.off:o.off + 2])
        if o.proto in ENCLOSING and not (o.proto == "udp" and held == b"\0\0"):
            s = 0xFFFF - fold(bytes(x ^ 0xFF for x in held + old) + value.to_bytes(2, "big"))
            put16(b, frame, j, s or (0xFFFF if o.proto == "udp" else 0))


def leave_partial(b, fr, rng):
    """Leaves most TCP/UDP sums as a sender's stack does with CHECKSUM_PARTIAL
    (the pseudo-header sum, the final destination's), innermost first, the
    sums around them kept right. Returns their indices."""
    partial = []
    for i in reversed(range(len(fr.fields))):
        f = fr.fields[i]
        if f.partial is not None and not f.fixed and not zero_udp(fr, f) and rng.random() < 0.8:
            put16(b, fr, i, f.partial)
            partial.append(i)
    return partial


def damage(b, f, rng):
    """Changes the field's last byte: never to "no checksum" or to "partial"
    (so never to the other zero, 0x0000 for 0xFFFF)."""
    last = b[f.off + f.width - 1]
    while True:
        b[f.off + f.width - 1] = last ^ (1 + rng.randrange(255))
        v = int.from_bytes(b[f.off:f.off + 2], "big")
        if v != f.partial and not (f.proto == "udp" and v == 0):
            return


def damage_any(b, fr, rng):
    """Damages one sum csumd judges; returns its index, or None."""
    hit = [i for i, f in enumerate(fr.fields) if not f.fixed]
    k = rng.choice(hit) if hit else None
    if hit:
        damage(b, fr.fields[k], rng)
    return k


def damage_carried(b, fr, rng):
    """Damages the innermost 16-bit sum as a sender would that computed the
    sums around it afterwards: only it is bad. Returns its index, or None."""
    k = len(fr.fields) - 1
    if k < 0 or fr.fields[k].fixed or fr.fields[k].width != 2 or zero_udp(fr, fr.fields[k]):
        return None
    c = bytearray(b)
    damage(c, fr.fields[k], rng)
    put16(b, fr, k, int.from_bytes(c[fr.fields[k].off:][:2], "big"))
    return k


def damage_inside(b, fr, rng):
    """Flips a byte the innermost TCP/UDP sum covers: of its payload, or of
    the address its pseudo-header uses (when no sum lies around it, an IPv4
    header's sum made right again). Or, where a routing header or source
    route names the final destination, of the IP destination: nothing goes
    bad then. Returns the index of the layer gone bad, None, or -1: no such byte."""
    k, f = len(fr.fields) - 1, fr.fields[-1] if fr.fields else None
    if not f or f.partial is None or f.fixed or zero_udp(fr, f):
        return -1
    if rng.random() < 0.5:
        hdr = 4 * (b[f.start + 12] >> 4) if f.proto == "tcp" else 8
        if f.end - f.start <= hdr:
            return -1
        b[rng.randrange(f.start + hdr, f.end)] ^= 1 + rng.randrange(255)
        return k
    if any(o.proto in ENCLOSING for o in fr.fields[:k]):
        return -1
    at, bad = (f.dst, None) if f.final != f.dst and rng.random() < 0.5 else (f.final, k)
    b[at + rng.randrange(16 if f.v6 else 4)] ^= 1 + rng.randrange(255)
    if not f.v6:
        ihl = 4 * (b[f.ip] & 15)
        b[f.ip + 10:f.ip + 12] = b"\0\0"
        b[f.ip + 10:f.ip + 12] = (0xFFFF - fold(bytes(b[f.ip:f.ip + ihl]))).to_bytes(2, "big")
    return bad


class WideRandomTraffic(unittest.TestCase):
    replay = base.RandomTraffic.replay  # (frames, mode, mbuf_size) -> out pcap, verdicts, stats

    @classmethod
    def setUpClass(cls):
        cls.frames = frames(random.Random(SEED), 1200, 300)

    def check(self, mode, inputs, want, mbuf_sizes=MBUF_SIZES):
        """Replays inputs; want: per frame (bytes out, statuses, (ip_summed, level))."""
        for mbuf_size in mbuf_sizes:
            with self.subTest(mode=mode, mbuf_size=mbuf_size):
                out, log, stats = self.replay(inputs, mode, mbuf_size)
                got = read_pcap_frames(out)
                self.assertEqual((len(got), len(log)), (len(inputs),) * 2)
                wrong = []
                for i, (fr, inp, (b, st, summed), v) in enumerate(
                        zip(self.frames, inputs, want, log)):
                    ours = [l["status"] for l in v["layers"]]
                    if got[i] != b or ours != st or (v["ip_summed"], v["csum_level"]) != summed:
                        wrong.append(f"#{i} {fr.shape}: in {inp.hex()}\n  statuses {ours} "
                                     f"{v.get('error', '')} "
                                     f"want {st}, {v['ip_summed']}/{v['csum_level']} want "
                                     f"{summed}\n  wrote {got[i].hex()}\n  want  {b.hex()}")
                self.assertEqual(len(wrong), 0, f"{len(wrong)} wrong:\n" + "\n".join(wrong[:4]))
                self.counts_agree(stats["engine"], log)

    def counts_agree(self, engine, log):
        """The engine's counters say what the verdicts say, packet for packet."""
        layers, summed, levels = Counter(), Counter(), [0] * 8
        for v in log:  # no frame here goes past csum_level 2, where the log caps it
            layers.update((l["proto"], l["status"]) for l in v["layers"])
            summed[v["ip_summed"]] += 1
            levels[v["csum_level"]] += v["ip_summed"] == "CHECKSUM_UNNECESSARY"
        self.assertEqual({(p, s): n for p, st in engine["layers"].items() for s, n in st.items()
                          if n}, +layers)
        self.assertEqual({k: n for k, n in engine["ip_summed"].items() if n}, +summed)
        self.assertEqual(engine["csum_level"], levels)
        self.assertEqual(engine["sw_filled"], layers.total() - sum(
            n for (p, s), n in layers.items() if s != "filled"))

    def test_fill_writes_what_scapy_computes(self):
        rng, inputs, want = random.Random(SEED + 1), [], []
        for fr in self.frames:
            b, out = bytearray(fr.good), bytearray(fr.filled)
            for f in fr.fields:
                if not zero_udp(fr, f):  # an absent sum stays absent in the input
                    b[f.off:f.off + f.width] = rbytes(rng, f.width)
                    if f.proto == "udp" and b[f.off:f.off + 2] == b"\0\0":
                        b[f.off + 1] = 1  # garbage, not "no checksum"
                if f.fixed:  # never judged, so never filled
                    out[f.off:f.off + f.width] = b[f.off:f.off + f.width]
            inputs.append(bytes(b))
            want.append((bytes(out),) + expected(fr, mode="fill"))
        self.check("fill", inputs, want)

    def test_verify_judges_every_layer(self):
        """As scapy wrote them; a byte damaged under the innermost sum; one
        sum damaged (or the sums around it made to cover it); TCP/UDP sums
        left partial by a sender (status partial, ip_summed PARTIAL)."""
        rng, inputs, want = random.Random(SEED + 2), [], []
        for fr in self.frames:
            b, k, partial, how = bytearray(fr.good), None, [], rng.random()
            if how < 0.2:
                k = damage_inside(b, fr, rng)
            elif how < 0.3:
                k = damage_carried(b, fr, rng)
            elif how < 0.45:
                k = -1
            elif how < 0.6:
                partial = leave_partial(b, fr, rng)
            if k == -1:
                k = damage_any(b, fr, rng)
            inputs.append(bytes(b))
            want.append((bytes(b),) + expected(fr, k, partial, carried=0.2 <= how < 0.3))
        self.check("verify", inputs, want)

    def test_csum_fills_partial_and_illegal_only(self):
        """As scapy wrote them; one sum damaged (left so; or the sums around
        it made to cover it); TCP/UDP sums a sender left partial (filled),
        and maybe a sum around them damaged (left so, the partial ones filled)."""
        rng, inputs, want = random.Random(SEED + 3), [], []
        for fr in self.frames:
            b, k, partial, carried = bytearray(fr.good), None, [], False
            zero = [f.v6 for f in fr.fields if zero_udp(fr, f)]
            kind = rng.randrange(5) if not zero else rng.choice([0, 2])
            if kind == 1:
                k = damage_any(b, fr, rng)
            elif kind == 4:
                k, carried = damage_carried(b, fr, rng), True
            elif kind in (2, 3):
                partial = leave_partial(b, fr, rng)
                around = [j for j in range(min(partial, default=0))
                          if fr.fields[j].proto in ENCLOSING]
                if kind == 3 and around:
                    k = rng.choice(around)
                    damage(b, fr.fields[k], rng)
            out = fr.filled if any(zero) else fr.good  # a zero sum over IPv6 filled
            if k is not None and kind in (1, 4):
                out = bytes(b)
            elif k is not None:  # what the damaged sum covers is filled, around it left
                out = bytearray(out)
                for f in fr.fields[:k + 1]:
                    out[f.off:f.off + f.width] = b[f.off:f.off + f.width]
            inputs.append(bytes(b))
            want.append((bytes(out),) + expected(fr, k, partial, "csum", carried))
        self.check("csum", inputs, want, (2048, 256))

    def test_tshark_agrees_with_scapy(self):
        """The judge judged: tshark finds none of scapy's sums bad."""
        path = os.path.join(tmpdir(), "scapy.pcap")
        write_pcap(path, [fr.filled for fr in self.frames])
        bad = [(i, fr.shape, layers) for i, (fr, layers) in
               enumerate(zip(self.frames, tshark_layers(path)))
               if not any(f.fixed for f in fr.fields) and any(s == TS_BAD for _, s in layers)]
        self.assertEqual(bad[:5], [], f"{len(bad)} frames tshark calls bad")


if __name__ == "__main__":
    unittest.main()
