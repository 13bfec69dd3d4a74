// One read a page: maps memory before the hot path touches it.
#pragma once

#include <cstdint>

namespace csum::app {

// Reads one byte of every 4-KiB page that [start, end) overlaps; writes
// nothing. Uninstrumented: a page's first byte may lie in a redzone
// AddressSanitizer puts between globals, or outside the object
// (ThreadSanitizer: nothing here is shared state).
__attribute__((no_sanitize_address, no_sanitize_thread)) inline void read_pages(uintptr_t start,
                                                                                uintptr_t end) {
    for (uintptr_t a = start & ~uintptr_t{4095}; a < end; a += 4096)
        (void)*reinterpret_cast<const volatile char*>(a);
}

}  // namespace csum::app
