// ThreadSanitizer cannot see the synchronisation inside DPDK, which is not
// built with it: launching and waiting for lcores, and mbufs handed from one
// lcore to another through rings and mempools. These annotations state what
// DPDK guarantees, so TSan reports only csumd's own races. No-ops otherwise.
#pragma once

#include <rte_mbuf.h>

#if defined(__SANITIZE_THREAD__)
#define CSUMD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CSUMD_TSAN 1
#endif
#endif

#ifdef CSUMD_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace csumd {

inline void tsan_acquire([[maybe_unused]] const void* p) {
#ifdef CSUMD_TSAN
    __tsan_acquire(const_cast<void*>(p));
#endif
}
inline void tsan_release([[maybe_unused]] const void* p) {
#ifdef CSUMD_TSAN
    __tsan_release(const_cast<void*>(p));
#endif
}
// Every segment: a segment freed by one lcore may come back as another's head.
inline void tsan_acquire_chain([[maybe_unused]] const rte_mbuf* m) {
#ifdef CSUMD_TSAN
    for (; m != nullptr; m = m->next) tsan_acquire(m);
#endif
}
inline void tsan_release_chain([[maybe_unused]] const rte_mbuf* m) {
#ifdef CSUMD_TSAN
    for (; m != nullptr; m = m->next) tsan_release(m);
#endif
}

}  // namespace csumd
