// The inline data-PDU header check agrees with check_common wherever it
// answers, and answers for every data PDU header check_common accepts.
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "nvme_tcp/pdu_rules.h"

namespace csum::nvme {
namespace {

bool same_layout(const PduLayout& a, const PduLayout& b) {
    return a.plen == b.plen && a.data_start == b.data_start && a.data_end == b.data_end &&
           a.type == b.type && a.flags == b.flags && a.hlen == b.hlen && a.pdo == b.pdo &&
           a.hd == b.hd && a.dd == b.dd;
}

TEST(PduRules, DataPduFastCheckAgreesWithCheckCommon) {
    std::mt19937 rng(14);
    const Tri tris[] = {Tri::unknown, Tri::off, Tri::on};
    // Values near every bound the rules test, and some anywhere.
    const uint32_t plens[] = {0,  1,  23,  24,  25,  27,  28,   29,   31,    32,         33,
                              36, 37, 255, 256, 259, 260, 4096, 4128, 65536, 0xFFFFFFFFu};
    int accepted = 0;
    for (int i = 0; i < 400000; ++i) {
        uint8_t h[8];
        const uint32_t pick = rng();
        h[0] = pick % 4 == 0 ? uint8_t(rng()) : uint8_t(6 + pick % 2);
        h[1] = pick % 8 < 6 ? uint8_t(rng() % 16) : uint8_t(rng());
        h[2] = pick % 16 == 1 ? uint8_t(rng()) : 24;
        h[3] = pick % 3 == 0 ? uint8_t(rng()) : uint8_t(24 + rng() % 12);
        const uint32_t plen =
            pick % 5 == 0 ? uint32_t(rng()) : plens[rng() % std::size(plens)] + rng() % 3 - 1;
        std::memcpy(h + 4, &plen, 4);  // little-endian host
        const Negotiation neg{tris[rng() % 3], tris[rng() % 3], false};
        const uint32_t max_plen = rng() % 4 == 0 ? uint32_t(rng()) : (1u << 20) + 256;
        PduLayout fast, slow;
        const bool ok = check_data_pdu(h, neg, max_plen, &fast);
        const NvmeDesyncReason why = check_common(h, neg, max_plen, &slow);
        if (ok) {
            ++accepted;
            ASSERT_EQ(why, NvmeDesyncReason::none) << i;
            ASSERT_TRUE(same_layout(fast, slow)) << i;
        } else if ((h[0] == kH2CData || h[0] == kC2HData) && h[2] == 24) {
            ASSERT_NE(why, NvmeDesyncReason::none) << i;  // it declines only what fails
        }
    }
    EXPECT_GT(accepted, 10000);
}

}  // namespace
}  // namespace csum::nvme
