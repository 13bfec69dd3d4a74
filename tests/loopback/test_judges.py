"""The loopback judges' two checksum oracles agree: scapy (the fallback
should tshark hang) counts every status as tshark does, on frames good and
bad, tunnelled, over IPv6 and with a zero UDP checksum."""
import os
import random
import unittest
from unittest import mock

from scapy.all import IP, TCP, UDP, IPv6, wrpcap
from scapy.layers.l2 import Ether as EtherLayer
from scapy.layers.vxlan import VXLAN

import judges
from judges import checksum_statuses, scapy_checksum_statuses, work_dir


def frames(rng):
    """Good frames of every kind, then each with one checksum field changed."""
    a4, a6 = dict(src="10.1.2.3", dst="10.4.5.6"), dict(src="fd00::1", dst="fd00::2")
    # Addresses given: scapy would resolve a missing one (ARP, seconds each).
    Ether = lambda: EtherLayer(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    payload = lambda: rng.randbytes(rng.randrange(0, 300))
    good = []
    for _ in range(20):
        good += [
            Ether() / IP(**a4) / TCP(sport=rng.randrange(1, 65535)) / payload(),
            Ether() / IP(**a4, options=b"\x01" * 4) / UDP(dport=7000) / payload(),
            Ether() / IPv6(**a6) / TCP() / payload(),
            Ether() / IPv6(**a6) / UDP() / payload(),
            Ether() / IP(**a4) / UDP(dport=4789) / VXLAN() / Ether() / IP(**a4) / TCP() / payload(),
        ]
    bad = [
        Ether() / IP(**a4, chksum=0x1234) / TCP() / b"x",
        Ether() / IP(**a4) / TCP(chksum=0x1234) / b"xy",
        Ether() / IP(**a4) / UDP(chksum=0x4321) / b"xyz",
        Ether() / IP(**a4) / UDP(chksum=0) / b"no sum",
        Ether() / IPv6(**a6) / TCP(chksum=1) / b"v6",
        Ether() / IP(**a4) / UDP(dport=4789) / VXLAN() / Ether() / IP(**a4) / UDP(chksum=9) / b"in",
    ]
    return good + bad


class Judges(unittest.TestCase):
    def setUp(self):
        self.pcap = os.path.join(work_dir(self), "judged.pcap")
        wrpcap(self.pcap, frames(random.Random(5)))

    def test_scapy_counts_every_status_as_tshark(self):
        by_tshark = checksum_statuses(self.pcap)
        self.assertEqual(scapy_checksum_statuses(self.pcap), by_tshark)
        # Bad and absent sums are there to be told apart.
        for key in (("ip", 0), ("tcp", 0), ("udp", 0), ("udp", 3)):
            self.assertGreater(by_tshark[key], 0, key)

    def test_a_tshark_hang_leaves_the_judging_to_scapy(self):
        def hang(*_args, **_kw):
            raise judges.TsharkHung("tshark hung twice (simulated)")

        with mock.patch.object(judges, "tshark_rows", hang):
            self.assertEqual(checksum_statuses(self.pcap), scapy_checksum_statuses(self.pcap))


if __name__ == "__main__":
    unittest.main()
