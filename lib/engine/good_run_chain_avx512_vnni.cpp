// chain_walk.h's loop built for AVX-512 with VNNI, vpdpwssd (chain_walk_body.h
// says how).
#define CSUM_CHAIN_WALK_VNNI 1
#include "engine/chain_walk_body.h"
