# Baseline ISA: any x86-64 CPU with SSE4.2 (x86-64-v2). Faster kernels are
# compiled per file with their own flags and chosen at run time, so the
# -march=corei7 that libdpdk.pc injects never decides their speed.
set(CSUM_BASE_ARCH_FLAGS -march=x86-64-v2 -mtune=generic)

# Per-kernel ISA flags, applied with set_source_files_properties.
set(CSUM_ISA_SSE42_FLAGS -msse4.2 -mpclmul)
# SSE4.2 + PCLMULQDQ code again, VEX-encoded (immune to dirty upper state).
set(CSUM_ISA_AVX_FLAGS -mavx -mpclmul -msse4.2)
set(CSUM_ISA_AVX2_FLAGS -mavx2 -mpclmul -mvpclmulqdq -msse4.2)
set(CSUM_ISA_AVX512_FLAGS -mavx512f -mavx512bw -mavx512vl -mavx512dq -mpclmul -mvpclmulqdq -msse4.2)

set(CSUM_WARNINGS -Wall -Wextra)

# libcsum's exported functions are not meant to be interposed. The compiler
# may then inline and optimise across them (-fno-semantic-interposition, for
# libcsum and libcsum_offload.so), and libcsum.so binds its own calls to them
# at link time (-Bsymbolic-functions): Engine::process -> crc32c is a direct
# call, not one through the PLT. (libcsum_offload.so is the one that
# interposes, on DPDK's ethdev functions, so it keeps default binding.)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set(CSUM_NO_INTERPOSITION -fno-semantic-interposition)
  set(CSUM_BIND_LOCAL -Wl,-Bsymbolic-functions)
endif()
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # The CRC32C constant tables are computed at compile time.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fconstexpr-steps=200000000>)
endif()

# CSUM_SANITIZE: ON/address means ASan + UBSan; thread means ThreadSanitizer
# (the two cannot be combined in one build).
string(TOLOWER "${CSUM_SANITIZE}" CSUM_SANITIZE_KIND)
if(CSUM_SANITIZE_KIND STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  set(CSUM_SANITIZE_FLAGS -fsanitize=thread)
elseif(CSUM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  set(CSUM_SANITIZE_FLAGS -fsanitize=address,undefined)
endif()

if(CSUM_FUZZ)
  # Coverage in the library too, not only in the fuzz targets' own files.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Apply the project's own warnings and baseline ISA to a target.
function(csum_target_defaults target)
  target_compile_options(${target} PRIVATE ${CSUM_WARNINGS} ${CSUM_BASE_ARCH_FLAGS})
endfunction()
