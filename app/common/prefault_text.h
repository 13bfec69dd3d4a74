// Maps the pages of every read-only segment loaded in the process (code
// and constant tables of the program, libcsum, DPDK) before forwarding
// starts, one read a page.
// Otherwise the first burst takes a page fault for each page of code it
// runs for the first time: csumd's first burst of 20 packets cost ~1M TSC
// ticks, most of it in faults (docs/benchmarks.md).
#pragma once

#include <link.h>

#include <cstdint>

namespace csum::app {

// One read a page of [start, end), uninstrumented: a page's first byte may
// lie in a redzone AddressSanitizer puts between constant globals.
// (ThreadSanitizer: nothing here is shared state.)
__attribute__((no_sanitize_address, no_sanitize_thread)) inline void read_pages(uintptr_t start,
                                                                                uintptr_t end) {
    for (uintptr_t a = start; a < end; a += 4096) (void)*reinterpret_cast<const volatile char*>(a);
}

inline void prefault_text() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void*) -> int {
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                // Readable code and read-only data (tables): nothing is written.
                if (ph.p_type != PT_LOAD || (ph.p_flags & (PF_R | PF_W)) != PF_R || ph.p_memsz == 0)
                    continue;
                read_pages((info->dlpi_addr + ph.p_vaddr) & ~uintptr_t{4095},
                           info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
            }
            return 0;
        },
        nullptr);
}

}  // namespace csum::app
