// Frames built once into mbufs (linear or chained) and handed out burst after
// burst, so generating traffic costs a pointer copy per packet. Checksum
// fields the engine may rewrite are put back before each burst.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "gen/profile.h"

namespace bench {

class ReplayPool {
  public:
    // Builds every frame into mbufs from a pool on `socket`. nullptr and *err on failure.
    static std::unique_ptr<ReplayPool> create(const csum::gen::Profile& p,
                                              const std::vector<csum::gen::Frame>& frames,
                                              uint16_t max_burst, int socket, std::string* err);
    ~ReplayPool();
    ReplayPool(const ReplayPool&) = delete;
    ReplayPool& operator=(const ReplayPool&) = delete;

    // The next n packets (n <= max_burst), copied into out.
    struct Burst {
        uint64_t bytes, corrupt, nvme_data;
    };
    Burst next(rte_mbuf** out, uint16_t n, bool restore) noexcept {
        const uint32_t at = pos_;
        for (uint16_t i = 0; i < n; ++i) {
            out[i] = ring_[at + i];
            out[i]->ol_flags = 0;  // as a PMD without RX checksum offload hands them over
            out[i]->packet_type = 0;
        }
        if (restore) restore_fields(at, n);
        pos_ = at + n >= size_ ? at + n - size_ : at + n;
        return {cum_bytes_[at + n] - cum_bytes_[at], cum_corrupt_[at + n] - cum_corrupt_[at],
                cum_nvme_[at + n] - cum_nvme_[at]};
    }

    uint32_t size() const { return size_; }
    double mean_frame_bytes() const { return double(cum_bytes_[size_]) / size_; }

  private:
    ReplayPool() = default;
    void restore_fields(uint32_t at, uint16_t n) noexcept;

    struct PatchByte {
        uint8_t* addr;
        uint8_t value;
    };
    rte_mempool* mp_ = nullptr;
    uint32_t size_ = 0, pos_ = 0;
    // Indexed by ring position; positions size_.. repeat the start so a burst never wraps.
    std::vector<rte_mbuf*> ring_;
    std::vector<uint32_t> patch_begin_;  // patch_begin_[i]..patch_begin_[i+1] are frame i's bytes
    std::vector<PatchByte> patches_;
    std::vector<uint64_t> cum_bytes_, cum_corrupt_, cum_nvme_;  // prefix sums over the ring
};

}  // namespace bench
