/* Shared by the C API tests: a check macro, EAL start-up, and packet
 * builders whose checksums come from a byte-by-byte reference sum, not from
 * libcsum. C11. */
#ifndef CSUM_TEST_CAPI_UTIL_H
#define CSUM_TEST_CAPI_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

static int g_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++g_failures;                                                            \
        }                                                                            \
    } while (0)

#define CHECK_EQ(a, b)                                                                            \
    do {                                                                                          \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                     \
        if (va_ != vb_) {                                                                         \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %lld, %s = %lld\n", __FILE__, __LINE__, \
                    #a, va_, #b, vb_);                                                            \
            ++g_failures;                                                                         \
        }                                                                                         \
    } while (0)

static inline void eal_start(const char* name, const char* extra1, const char* extra2) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "--file-prefix=%s_%d", name, (int)getpid());
    char* argv[16];
    int argc = 0;
    argv[argc++] = (char*)name;
    argv[argc++] = (char*)"--no-pci";
    argv[argc++] = (char*)"--no-huge";
    argv[argc++] = (char*)"-m";
    argv[argc++] = (char*)"256";
    argv[argc++] = (char*)"--no-shconf";
    argv[argc++] = (char*)"--no-telemetry";
    argv[argc++] = (char*)"-l";
    argv[argc++] = (char*)"0";
    argv[argc++] = (char*)"--log-level=lib.eal:error";
    argv[argc++] = prefix;
    if (extra1) argv[argc++] = (char*)extra1;
    if (extra2) argv[argc++] = (char*)extra2;
    if (rte_eal_init(argc, argv) < 0) {
        fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
        exit(1);
    }
}

/* Reference Internet sum over big-endian words, bytes as in the packet. */
static inline uint32_t ref_sum(const uint8_t* p, size_t len, uint32_t s) {
    for (size_t i = 0; i + 1 < len; i += 2) s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (len & 1) s += (uint32_t)p[len - 1] << 8;
    return s;
}
static inline uint16_t ref_fold(uint32_t s) {
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)s;
}
static inline void put16(uint8_t* p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline uint16_t get16(const uint8_t* p) {
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* Reference CRC32C, bit by bit. */
static inline uint32_t ref_crc32c(const uint8_t* p, size_t len) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return ~c;
}

enum { L4_TCP = 6, L4_UDP = 17, L4_SCTP = 132 };

/* The IPv4 pseudo-header sum for the L4 at ip. */
static inline uint32_t ref_pseudo4(const uint8_t* ip, uint8_t proto, uint16_t l4_len) {
    uint32_t s = ref_sum(ip + 12, 8, 0);
    return s + proto + l4_len;
}
static inline uint32_t ref_pseudo6(const uint8_t* ip6, uint8_t proto, uint32_t l4_len) {
    uint32_t s = ref_sum(ip6 + 8, 32, 0);
    return s + proto + (l4_len >> 16) + (l4_len & 0xFFFF);
}

/* Right checksums for the IPv4 header at ip and its L4 (TCP/UDP/SCTP). */
static inline void ref_fill_ipv4(uint8_t* ip) {
    const int ihl = (ip[0] & 0xF) * 4;
    put16(ip + 10, 0);
    put16(ip + 10, (uint16_t)~ref_fold(ref_sum(ip, (size_t)ihl, 0)));
}
static inline void ref_fill_l4(uint8_t* l4, uint32_t l4_len, uint8_t proto, uint32_t pseudo) {
    if (proto == L4_SCTP) {
        memset(l4 + 8, 0, 4);
        const uint32_t c = ref_crc32c(l4, l4_len);
        l4[8] = (uint8_t)c, l4[9] = (uint8_t)(c >> 8), l4[10] = (uint8_t)(c >> 16),
        l4[11] = (uint8_t)(c >> 24);
        return;
    }
    uint8_t* f = l4 + (proto == L4_TCP ? 16 : 6);
    put16(f, 0);
    uint16_t c = (uint16_t)~ref_fold(ref_sum(l4, l4_len, pseudo));
    if (proto == L4_UDP && c == 0) c = 0xFFFF;
    put16(f, c);
}
/* 1 if the L4 checksum at l4 is right. */
static inline int ref_l4_ok(const uint8_t* l4, uint32_t l4_len, uint8_t proto, uint32_t pseudo) {
    if (proto == L4_SCTP) {
        uint8_t tmp[2048];
        if (l4_len > sizeof tmp) return 0;
        memcpy(tmp, l4, l4_len);
        memset(tmp + 8, 0, 4);
        const uint32_t c = ref_crc32c(tmp, l4_len);
        return l4[8] == (uint8_t)c && l4[9] == (uint8_t)(c >> 8) && l4[10] == (uint8_t)(c >> 16) &&
               l4[11] == (uint8_t)(c >> 24);
    }
    const uint16_t f = ref_fold(ref_sum(l4, l4_len, pseudo));
    return f == 0xFFFF;
}
static inline int ref_ipv4_ok(const uint8_t* ip) {
    return ref_fold(ref_sum(ip, (size_t)(ip[0] & 0xF) * 4, 0)) == 0xFFFF;
}

/* Writes Ethernet + IPv4 + L4 (+ payload) into buf; returns the frame length.
 * Checksums are right; l4 header sizes: TCP 20, UDP 8, SCTP 12 + one DATA chunk. */
static inline size_t build_ipv4(uint8_t* buf, uint8_t proto, size_t payload, int fill) {
    memset(buf, 0, 14);
    buf[0] = 0x02, buf[6] = 0x02, buf[11] = 1;
    put16(buf + 12, 0x0800);
    uint8_t* ip = buf + 14;
    const size_t l4h = proto == L4_TCP ? 20 : proto == L4_UDP ? 8 : 12 + 16;
    const size_t l4_len = l4h + payload;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(20 + l4_len));
    put16(ip + 4, 0x1234);
    ip[8] = 64, ip[9] = proto;
    ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
    uint8_t* l4 = ip + 20;
    memset(l4, 0, l4h);
    put16(l4, 1234), put16(l4 + 2, proto == L4_TCP ? 80 : 5000);
    if (proto == L4_TCP) {
        l4[12] = 5 << 4, l4[13] = 0x18;
        put16(l4 + 14, 512);
    } else if (proto == L4_UDP) {
        put16(l4 + 4, (uint16_t)l4_len);
    } else {
        l4[12] = 0; /* DATA chunk */
        put16(l4 + 14, (uint16_t)(16 + payload));
    }
    for (size_t i = 0; i < payload; ++i) l4[l4h + i] = (uint8_t)(i * 7 + 3);
    if (fill) {
        ref_fill_ipv4(ip);
        ref_fill_l4(l4, (uint32_t)l4_len, proto, ref_pseudo4(ip, proto, (uint16_t)l4_len));
    }
    return 14 + 20 + l4_len;
}

/* Copies a frame into a chain whose segments hold `split` bytes each. */
static inline struct rte_mbuf* to_mbuf(struct rte_mempool* mp, const uint8_t* frame, size_t len,
                                       size_t split) {
    struct rte_mbuf *head = NULL, *prev = NULL;
    size_t off = 0;
    if (split == 0) split = len;
    do {
        struct rte_mbuf* m = rte_pktmbuf_alloc(mp);
        if (m == NULL) abort();
        const size_t n = len - off < split ? len - off : split;
        char* d = rte_pktmbuf_append(m, (uint16_t)n);
        if (d == NULL) abort();
        memcpy(d, frame + off, n);
        off += n;
        if (head == NULL) {
            head = m;
        } else {
            prev->next = m;
            head->nb_segs++;
            head->pkt_len += (uint32_t)n;
        }
        prev = m;
    } while (off < len);
    return head;
}

/* Copies a packet's bytes out (up to cap). */
static inline size_t from_mbuf(const struct rte_mbuf* m, uint8_t* out, size_t cap) {
    size_t n = 0;
    for (; m != NULL; m = m->next) {
        const size_t k = m->data_len < cap - n ? m->data_len : cap - n;
        memcpy(out + n, rte_pktmbuf_mtod(m, const uint8_t*), k);
        n += k;
    }
    return n;
}

#endif
