// CSUM_API marks what libcsum.so exports; the library builds with
// -fvisibility=hidden, so everything else stays internal.
#pragma once

#if defined(CSUM_STATIC_DEFINE)
#define CSUM_API
#else
#define CSUM_API __attribute__((visibility("default")))
#endif
