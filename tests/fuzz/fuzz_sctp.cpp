// The SCTP path: the input becomes the SCTP packet (common header and
// chunks) inside a valid Ethernet/IPv4 frame, so the fuzzer spends its time
// on chunk walking and CRC32C over odd chains rather than on IP headers.
#include <cstring>
#include <vector>

#include "csum/engine.h"
#include "fuzz_support.h"

using namespace csum;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 5 || size > 1400) return 0;
    fuzz::pool();  // the EAL first: the engine registers an mbuf dynfield
    static Engine* verify = [] {
        EngineConfig c;
        c.mode = Mode::verify;
        return new Engine(c);
    }();
    static Engine* fill = [] {
        EngineConfig c;
        c.mode = Mode::fill;
        return new Engine(c);
    }();
    uint32_t shape;
    std::memcpy(&shape, data, 4);
    const bool over_udp = data[4] & 1;
    data += 5, size -= 5;
    std::vector<uint8_t> f(14 + 20 + (over_udp ? 8 : 0) + size);
    f[12] = 0x08, f[14] = 0x45;
    const size_t ip_len = f.size() - 14;
    f[16] = uint8_t(ip_len >> 8), f[17] = uint8_t(ip_len), f[22] = 64, f[23] = over_udp ? 17 : 132;
    if (over_udp) {
        const size_t udp_len = 8 + size;
        f[34] = 0x26, f[35] = 0xAB, f[36] = 0x26, f[37] = 0xAB;  // port 9899 both ways
        f[38] = uint8_t(udp_len >> 8), f[39] = uint8_t(udp_len);
    }
    std::memcpy(f.data() + f.size() - size, data, size);
    for (Engine* e : {verify, fill}) {
        rte_mbuf* m = fuzz::make_chain(f.data(), f.size(), shape);
        if (m == nullptr) return 0;
        rte_mbuf* pkts[1] = {m};
        e->process({}, {}, pkts, 1);
        rte_pktmbuf_free(m);
    }
    fuzz::check_no_leak();
    return 0;
}
