// A region of functions built for a wider ISA than their file, for GCC and
// clang alike. An ISA file opens it after the headers whose inline
// functions must stay at the baseline ISA, so that none of them is emitted
// with the wider one (a COMDAT copy the linker may keep for baseline
// callers).
//
//   CSUM_TARGET_BEGIN(CSUM_ISA_AVX2)
//   ... functions ...
//   CSUM_TARGET_END
#pragma once

#define CSUM_ISA_AVX2 "avx2"
#define CSUM_ISA_AVX512 "bmi2,avx512f,avx512bw,avx512vl,avx512dq"
#define CSUM_ISA_AVX512_VNNI "bmi2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"

#define CSUM_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define CSUM_TARGET_BEGIN(isa) \
    CSUM_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define CSUM_TARGET_END CSUM_PRAGMA(clang attribute pop)
#define CSUM_AVX512_INTRINSIC_WARNINGS_OFF
#else
#define CSUM_TARGET_BEGIN(isa) \
    CSUM_PRAGMA(GCC push_options) CSUM_PRAGMA(GCC target(isa)) CSUM_PRAGMA(GCC diagnostic push)
#define CSUM_TARGET_END CSUM_PRAGMA(GCC diagnostic pop) CSUM_PRAGMA(GCC pop_options)
// GCC 12's AVX-512 intrinsics trip a false -W[maybe-]uninitialized
// (PR105593); inside a region, until its end; in a file built whole with
// AVX-512 flags, until the file's end.
#define CSUM_AVX512_INTRINSIC_WARNINGS_OFF                      \
    CSUM_PRAGMA(GCC diagnostic ignored "-Wmaybe-uninitialized") \
    CSUM_PRAGMA(GCC diagnostic ignored "-Wuninitialized")
#endif
