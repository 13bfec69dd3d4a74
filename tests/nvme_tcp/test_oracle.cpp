// Oracle: a pcap of an NVMe/TCP conversation with good and corrupted
// digests, judged PDU by PDU by tshark and by the tracker; they must agree.
// (No PDO padding here: tshark mis-ranges the data digest when PDO > HLEN.)
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "nvme_tcp/nvme_test.h"

namespace csum::test {
namespace {

uint16_t fold(uint32_t s) {
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return uint16_t(~s);
}
uint32_t sum16(const uint8_t* p, size_t n, uint32_t s = 0) {
    for (size_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i]) << 8 | p[i + 1];
    if (n & 1) s += uint32_t(p[n - 1]) << 8;
    return s;
}
void put16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v >> 8), p[1] = uint8_t(v);
}
void put32(uint8_t* p, uint32_t v) {
    put16(p, uint16_t(v >> 16)), put16(p + 2, uint16_t(v));
}

struct Frame {
    Bytes bytes;  // Ethernet/IPv4/TCP/payload
    NvmeFlowKey key;
    uint32_t seq;
    uint8_t flags;
    uint32_t payload_len;
};

// Two endpoints exchanging TCP segments with correct checksums.
class Conversation {
  public:
    Conversation() {
        ep_[0] = {{10, 0, 0, 1}, 40000, 1000};
        ep_[1] = {{10, 0, 0, 2}, 4420, 900000};
    }
    void ctl(int from, uint8_t flags) {
        emit(from, flags, {});
        ep_[from].seq += 1;  // SYN and FIN take a sequence number
    }
    void send(int from, std::span<const uint8_t> payload) {
        emit(from, 0x18, payload);  // PSH|ACK
        ep_[from].seq += uint32_t(payload.size());
    }
    // Sends `stream` cut at the given segment sizes (the last repeats).
    void send_cut(int from, const Bytes& stream, std::vector<uint32_t> sizes) {
        uint32_t off = 0;
        size_t k = 0;
        while (off < stream.size()) {
            const uint32_t n = std::min<uint32_t>(sizes[std::min(k++, sizes.size() - 1)],
                                                  uint32_t(stream.size()) - off);
            send(from, std::span(stream).subspan(off, n));
            off += n;
        }
    }
    const std::vector<Frame>& frames() const { return frames_; }

    void write_pcap(const std::string& path) const {
        std::ofstream f(path, std::ios::binary);
        const uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
        f.write(reinterpret_cast<const char*>(gh), sizeof gh);
        uint32_t t = 0;
        for (const Frame& fr : frames_) {
            const uint32_t ph[4] = {1700000000u + t / 1000, (t % 1000) * 1000,
                                    uint32_t(fr.bytes.size()), uint32_t(fr.bytes.size())};
            ++t;
            f.write(reinterpret_cast<const char*>(ph), sizeof ph);
            f.write(reinterpret_cast<const char*>(fr.bytes.data()), fr.bytes.size());
        }
    }

  private:
    struct Endpoint {
        uint8_t ip[4];
        uint16_t port;
        uint32_t seq;
    };
    void emit(int from, uint8_t flags, std::span<const uint8_t> payload) {
        const Endpoint& a = ep_[from];
        const Endpoint& b = ep_[1 - from];
        Bytes p(54 + payload.size(), 0);
        uint8_t* e = p.data();
        const uint8_t mac_a[6] = {2, 0, 0, 0, 0, uint8_t(1 + from)};
        const uint8_t mac_b[6] = {2, 0, 0, 0, 0, uint8_t(2 - from)};
        std::copy_n(mac_b, 6, e);
        std::copy_n(mac_a, 6, e + 6);
        put16(e + 12, 0x0800);
        uint8_t* ip = e + 14;
        ip[0] = 0x45;
        put16(ip + 2, uint16_t(40 + payload.size()));
        put16(ip + 4, uint16_t(frames_.size()));
        ip[6] = 0x40;  // DF
        ip[8] = 64;
        ip[9] = 6;
        std::copy_n(a.ip, 4, ip + 12);
        std::copy_n(b.ip, 4, ip + 16);
        put16(ip + 10, fold(sum16(ip, 20)));
        uint8_t* tcp = ip + 20;
        put16(tcp, a.port);
        put16(tcp + 2, b.port);
        put32(tcp + 4, a.seq);
        put32(tcp + 8, (flags & kTcpAck) ? b.seq : 0);
        tcp[12] = 5 << 4;
        tcp[13] = flags;
        put16(tcp + 14, 65535);
        std::copy(payload.begin(), payload.end(), tcp + 20);
        const uint32_t l4 = 20 + uint32_t(payload.size());
        uint32_t s = sum16(ip + 12, 8) + 6 + l4;
        put16(tcp + 16, fold(sum16(tcp, l4, s)));
        frames_.push_back({std::move(p), nvme_flow_key_v4(a.ip, b.ip, a.port, b.port), a.seq, flags,
                           uint32_t(payload.size())});
    }
    Endpoint ep_[2];
    std::vector<Frame> frames_;
};

constexpr int kHost = 0, kCtrl = 1;

Conversation build_conversation() {
    std::mt19937 rng(50);
    Conversation c;
    c.ctl(kHost, kTcpSyn);
    c.ctl(kCtrl, kTcpSyn | kTcpAck);
    c.send(kHost, icreq(3).bytes);
    c.send(kCtrl, icresp(3).bytes);
    // Write with in-capsule data, header split inside the header.
    c.send_cut(kHost, capsule_cmd(true, true, random_bytes(1500, rng)).bytes, {10, 1448});
    c.send(kCtrl, capsule_resp(true).bytes);
    // Read with a corrupted HDGST; 4 KiB C2HData then a response in one segment.
    Pdu rd = capsule_cmd(true, true, {});
    corrupt_hdgst(rd);
    c.send(kHost, rd.bytes);
    Bytes s =
        concat(std::vector<Pdu>{c2h_data(true, true, random_bytes(4096, rng)), capsule_resp(true)});
    c.send_cut(kCtrl, s, {1448});
    // Bad DDGST, with the digest split across two segments.
    c.send(kHost, capsule_cmd(true, true, {}).bytes);
    Pdu bad = c2h_data(true, true, random_bytes(2000, rng));
    corrupt_ddgst(bad);
    c.send_cut(kCtrl, bad.bytes, {1448, 2030 - 1448, 100});
    Pdu bad_resp = capsule_resp(true);
    corrupt_hdgst(bad_resp);
    c.send(kCtrl, bad_resp.bytes);
    // Write through R2T and H2CData, one of them with a bad DDGST.
    c.send(kHost, capsule_cmd(true, true, {}).bytes);
    c.send(kCtrl, r2t(true).bytes);
    Pdu h2 = h2c_data(true, true, random_bytes(700, rng));
    corrupt_ddgst(h2);
    s = concat(std::vector<Pdu>{h2c_data(true, true, random_bytes(2000, rng)), h2});
    c.send_cut(kHost, s, {1000, 1448});
    // Several PDUs in one segment, one bad.
    std::vector<Pdu> resps = {capsule_resp(true), capsule_resp(true), capsule_resp(true)};
    corrupt_hdgst(resps[1]);
    c.send(kCtrl, concat(resps));
    c.ctl(kHost, kTcpFin | kTcpAck);
    c.ctl(kCtrl, kTcpFin | kTcpAck);
    return c;
}

std::string status_list(std::span<const NvmePduRecord> recs, bool header) {
    std::string out;
    for (const NvmePduRecord& r : recs) {
        const NvmeDigestStatus st = header ? r.hdgst : r.ddgst;
        if (st == NvmeDigestStatus::none) continue;
        if (!out.empty()) out += ',';
        out += st == NvmeDigestStatus::good ? "1" : st == NvmeDigestStatus::bad ? "0" : "?";
    }
    return out;
}

TEST_F(NvmeTest, AgreesWithTsharkPduByPdu) {
    ASSERT_EQ(access("/usr/bin/tshark", X_OK), 0) << "tshark is needed for this oracle";
    const Conversation conv = build_conversation();
    const std::string pcap =
        testing::TempDir() + "nvme_oracle_" + std::to_string(getpid()) + ".pcap";
    conv.write_pcap(pcap);

    const std::string cmd =
        "/usr/bin/tshark -n -r " + pcap +
        " -o tcp.check_checksum:TRUE -o nvme-tcp.check_hdgst:TRUE"
        " -o nvme-tcp.check_ddgst:TRUE -T fields -E separator=/t -e frame.number"
        " -e tcp.checksum.status -e nvme-tcp.hdgst.status -e nvme-tcp.ddgst.status 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::vector<std::string> lines;
    char buf[4096];
    while (fgets(buf, sizeof buf, p) != nullptr) {
        std::string l(buf);
        while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
        lines.push_back(l);
    }
    ASSERT_EQ(pclose(p), 0);
    if (getenv("CSUM_KEEP_PCAP") == nullptr) std::remove(pcap.c_str());
    ASSERT_EQ(lines.size(), conv.frames().size());

    NvmeTracker& t = tracker();
    std::mt19937 rng(51);
    unsigned hd_seen = 0, dd_seen = 0, bad_seen = 0;
    for (size_t i = 0; i < conv.frames().size(); ++i) {
        const Frame& f = conv.frames()[i];
        const auto lens = random_split(uint32_t(f.bytes.size()), 1 + i % 3, rng);
        rte_mbuf* m = make_chain(pool(), f.bytes, lens);
        ASSERT_NE(m, nullptr);
        const size_t before = log().size();
        t.feed(f.key, f.seq, f.flags, m, 54, f.payload_len, i);
        rte_pktmbuf_free(m);
        const auto recs = log().subspan(before);

        std::vector<std::string> col;
        std::stringstream ss(lines[i]);
        std::string field;
        while (std::getline(ss, field, '\t')) col.push_back(field);
        col.resize(4);
        SCOPED_TRACE("frame " + col[0]);
        EXPECT_EQ(col[1], "1") << "TCP checksum of the generated frame";
        EXPECT_EQ(status_list(recs, true), col[2]);
        EXPECT_EQ(status_list(recs, false), col[3]);
        hd_seen += !col[2].empty();
        dd_seen += !col[3].empty();
        bad_seen += col[2].find('0') != std::string::npos || col[3].find('0') != std::string::npos;
    }
    // The conversation exercised what it was meant to.
    EXPECT_GE(hd_seen, 10u);
    EXPECT_GE(dd_seen, 4u);
    EXPECT_GE(bad_seen, 4u);
    EXPECT_EQ(t.stats().desyncs, 0u);
    EXPECT_EQ(t.stats().fin_closed, 1u);
}

}  // namespace
}  // namespace csum::test
