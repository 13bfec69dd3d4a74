// pclmul kernel: four xmm accumulators folded with pclmulqdq
// (crc32c_fold128.h). The widest kernel a CPU without VPCLMULQDQ has.
#include "crc32c/crc32c_fold128.h"
#include "crc32c/crc32c_kernels.h"

namespace csum::detail {

uint32_t crc32c_pclmul(uint32_t state, const uint8_t* p, size_t len) noexcept {
    return x86::crc_pclmul(state, p, len);
}

uint32_t crc32c_pclmul_mix(size_t s, uint32_t state, const uint8_t* p, size_t len) noexcept {
    switch (s) {
        case 1:
            return x86::crc_fold128<1>(state, p, len);
        case 2:
            return x86::crc_fold128<2>(state, p, len);
        case 4:
            return x86::crc_fold128<4>(state, p, len);
        case 8:
            return x86::crc_fold128<8>(state, p, len);
    }
    return x86::crc_fold128<0>(state, p, len);
}

}  // namespace csum::detail
