// Tunnel frames for the lean-tunnel tests: VXLAN and GENEVE over IPv4 or
// IPv6 around inner TCP or UDP, built by tests/support/frames (checksums from
// a reference sum kept apart from the library), and the damaged, half-filled
// and lying variants of each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/frames.h"

namespace csum::test {

struct Spec {
    bool ov6 = false;
    int kind = 0;  // 0 VXLAN, 1 GENEVE, 2 GENEVE with 24 bytes of options, 3 GENEVE carrying IP
    bool iv6 = false;
    bool iudp = false;
    size_t payload = 10;
    bool ocsum = true;  // the outer UDP checksum is present
};

struct Built {
    Bytes f;
    uint32_t ol4, il3, il4, ifield;
    std::string name;
};

void put16(Bytes& b, size_t off, uint16_t v);
uint16_t get16(const Bytes& b, size_t off);
// An IPv4 header's checksum made right again after a field was changed.
void fix_ipv4(Bytes& b, size_t off);
// What a stack leaves with CHECKSUM_PARTIAL: the folded pseudo-header sum.
uint16_t pseudo_fold(const Bytes& b, size_t ip, bool v6, uint8_t proto, uint32_t len);

Built build(const Spec& s);
// The inner L4 and the outer UDP checksums made right again, inner first
// (a zero outer one stays absent), after a change to the bytes they cover.
void fix_sums(Bytes& f, const Built& b, const Spec& s);
// Members for a same-shape run of b's template: changes it must take (the
// VNI, the outer DF bit or TTL, a payload byte, a frame trailer, each with
// its sums right) and changes it must not (besides variants()'s): the outer
// UDP checksum zero where the right one is 0xFFFF (so that the sums still
// add up), the outer destination port the other tunnel's, with sums right.
std::vector<std::pair<std::string, Bytes>> run_members(const Built& b, const Spec& s);
// Every outer/tunnel/inner combination, at each payload size, with the
// outer UDP checksum present and zero.
std::vector<Spec> every_spec(std::initializer_list<size_t> payloads);
// Damaged, half-filled and lying variants of a clean tunnel frame.
std::vector<std::pair<std::string, Bytes>> variants(const Built& b, const Spec& s,
                                                    std::mt19937& rng);

}  // namespace csum::test
