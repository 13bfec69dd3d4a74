#include "gen/pcap_writer.h"

#include <cstdio>
#include <memory>

namespace csum::gen {

bool write_pcap(const std::string& path, const std::vector<std::vector<uint8_t>>& frames,
                std::string* err) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) return *err = path + ": cannot open for writing", false;
    struct {
        uint32_t magic = 0xA1B2C3D4;
        uint16_t major = 2, minor = 4;
        int32_t zone = 0;
        uint32_t sigfigs = 0, snaplen = 262144, linktype = 1;  // Ethernet
    } hdr;
    bool ok = std::fwrite(&hdr, sizeof hdr, 1, f.get()) == 1;
    for (size_t i = 0; ok && i < frames.size(); ++i) {
        const uint32_t len = uint32_t(frames[i].size());
        const uint32_t rec[4] = {1700000000u + uint32_t(i / 1000000), uint32_t(i % 1000000), len,
                                 len};
        ok = std::fwrite(rec, sizeof rec, 1, f.get()) == 1 &&
             std::fwrite(frames[i].data(), 1, len, f.get()) == len;
    }
    if (!ok) *err = path + ": write failed";
    return ok;
}

}  // namespace csum::gen
