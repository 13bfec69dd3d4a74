#include "testkit/isal_crc32c.h"

#include <isa-l/crc.h>

#include <climits>

namespace csum::testkit {

uint32_t isal_crc32c_raw(uint32_t state, const uint8_t* p, size_t len) noexcept {
    auto* q = const_cast<unsigned char*>(p);  // ISA-L only reads it
    for (; len > INT_MAX; q += INT_MAX / 2, len -= INT_MAX / 2)
        state = crc32_iscsi(q, INT_MAX / 2, state);
    return crc32_iscsi(q, static_cast<int>(len), state);
}

}  // namespace csum::testkit
