// Maps the pages of every read-only segment loaded in the process (code
// and constant tables of the program, libcsum, DPDK) before forwarding
// starts, one read a page.
// Otherwise the first burst takes a page fault for each page of code it
// runs for the first time: csumd's first burst of 20 packets cost ~1M TSC
// ticks, most of it in faults (docs/benchmarks.md).
#pragma once

#include <link.h>

#include <cstdint>

#include "read_pages.h"

namespace csum::app {

inline void prefault_text() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void*) -> int {
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                // Readable code and read-only data (tables): nothing is written.
                if (ph.p_type != PT_LOAD || (ph.p_flags & (PF_R | PF_W)) != PF_R || ph.p_memsz == 0)
                    continue;
                const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
                read_pages(start, start + ph.p_memsz);
            }
            return 0;
        },
        nullptr);
}

}  // namespace csum::app
