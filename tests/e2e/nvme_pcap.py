"""Builds NVMe/TCP conversations as Ethernet/IPv4/TCP frames (scapy computes
the IP/TCP checksums; digests are CRC32C, little-endian, computed here)."""
import struct
import warnings

warnings.filterwarnings("ignore")
from scapy.all import IP, TCP, Ether, Raw  # noqa: E402

_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    _TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ _TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


HDGST, DDGST = 0x01, 0x02


def pdu(ptype, specific, data=b"", hdgst=True, ddgst=True, bad_h=False, bad_d=False, zero=False):
    """One PDU: 8-byte common header + PDU-specific header (+HDGST) + data (+DDGST)."""
    hlen = 8 + len(specific)
    flags = (HDGST if hdgst else 0) | (DDGST if ddgst and data else 0)
    pdo = hlen + (4 if hdgst else 0) if data else 0
    plen = hlen + (4 if hdgst else 0) + len(data) + (4 if ddgst and data else 0)
    header = struct.pack("<BBBBI", ptype, flags, hlen, pdo, plen) + specific
    out = header
    if hdgst:
        h = 0 if zero else crc32c(header) ^ (0xDEAD if bad_h else 0)
        out += struct.pack("<I", h)
    out += data
    if ddgst and data:
        d = 0 if zero else crc32c(data) ^ (0xBEEF if bad_d else 0)
        out += struct.pack("<I", d)
    return out


def icreq(hdgst=True, ddgst=True):
    # PFV 0, HPDA 0, DGST bits, MAXR2T; padded to HLEN 128. ICReq carries no digests.
    specific = struct.pack("<HBBI", 0, 0, (1 if hdgst else 0) | (2 if ddgst else 0), 0) + bytes(112)
    return pdu(0x00, specific, hdgst=False, ddgst=False)


def icresp(hdgst=True, ddgst=True):
    specific = struct.pack("<HBBI", 0, 0, (1 if hdgst else 0) | (2 if ddgst else 0), 131072) + bytes(112)
    return pdu(0x01, specific, hdgst=False, ddgst=False)


def c2h_data(cid, offset, data, **kw):
    # CCCID, reserved, DATAO, DATAL, reserved: 16 bytes after the common header (HLEN 24).
    specific = struct.pack("<HHIII", cid, 0, offset, len(data), 0)
    return pdu(0x07, specific, data, **kw)


def capsule_resp(cid, **kw):
    specific = struct.pack("<IIHHHH", 0, 0, 0, 0, cid, 0)  # 16-byte completion queue entry
    return pdu(0x05, specific, b"", ddgst=False, **kw)


def conversation(bad_h_at=(), bad_d_at=(), zero=False, seg=1448, pdus=6, data_len=3000):
    """Frames of one connection: SYN/SYN-ACK, ICReq/ICResp, then C2HData PDUs
    (some with bad digests) cut into `seg`-byte TCP segments, then FIN."""
    host, ctrl = dict(src="10.9.0.1", dst="10.9.0.2"), dict(src="10.9.0.2", dst="10.9.0.1")
    e1 = Ether(src="02:00:00:00:09:01", dst="02:00:00:00:09:02")
    e2 = Ether(src="02:00:00:00:09:02", dst="02:00:00:00:09:01")
    hs, cs = 1000, 5000
    frames = [e1 / IP(**host) / TCP(sport=40000, dport=4420, flags="S", seq=hs - 1),
              e2 / IP(**ctrl) / TCP(sport=4420, dport=40000, flags="SA", seq=cs - 1, ack=hs)]
    req = icreq()
    frames.append(e1 / IP(**host) / TCP(sport=40000, dport=4420, flags="PA", seq=hs, ack=cs) / Raw(req))
    hs += len(req)
    stream = icresp()
    for i in range(pdus):
        data = bytes((i * 31 + k * 7) & 0xFF for k in range(data_len))
        stream += c2h_data(i, 0, data, bad_h=i in bad_h_at, bad_d=i in bad_d_at, zero=zero)
        stream += capsule_resp(i, zero=zero)
    for off in range(0, len(stream), seg):
        chunk = stream[off:off + seg]
        frames.append(e2 / IP(**ctrl) / TCP(sport=4420, dport=40000, flags="PA", seq=cs + off, ack=hs) / Raw(chunk))
    frames.append(e2 / IP(**ctrl) / TCP(sport=4420, dport=40000, flags="FA", seq=cs + len(stream), ack=hs))
    return [bytes(f) for f in frames]
