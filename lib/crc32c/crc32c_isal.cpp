// isal kernel: ISA-L's crc32_iscsi, whose init/return is our raw state.
#include <isa-l/crc.h>

#include <climits>

#include "crc32c/crc32c_kernels.h"

namespace csum::detail {

uint32_t crc32c_isal(uint32_t state, const uint8_t* p, size_t len) noexcept {
    auto* q = const_cast<unsigned char*>(p);  // ISA-L only reads it
    for (; len > INT_MAX; q += INT_MAX / 2, len -= INT_MAX / 2)
        state = crc32_iscsi(q, INT_MAX / 2, state);
    return crc32_iscsi(q, static_cast<int>(len), state);
}

}  // namespace csum::detail
