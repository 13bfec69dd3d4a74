// CSUM_API marks what libcsum.so exports; the library builds with
// -fvisibility=hidden, so everything else stays internal.
#pragma once

#define CSUM_API __attribute__((visibility("default")))
// For what an exported class keeps to itself (its pimpl).
#define CSUM_LOCAL __attribute__((visibility("hidden")))
