/* csum_port_attach over a real net_ring pair (port A's TX ring is port B's
 * RX ring): TX requests served in software and checked by a reference sum,
 * RX flags and verdicts set like a NIC's, named errors for wrong lengths,
 * hardware-done requests left alone, detach. C11. */
#include <csum/csum.h>

#include <errno.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "capi_util.h"

static struct rte_mempool* g_pool;
static uint16_t g_a, g_b;

enum { MAXF = 1600 };

struct frame {
    uint8_t b[MAXF];
    size_t len;
};

/* Ethernet + IPv4 (outer) + UDP 4789 + VXLAN + Ethernet + IPv4 + TCP. */
static size_t build_vxlan(uint8_t* buf, size_t payload, int fill) {
    uint8_t inner[MAXF];
    const size_t in_len = build_ipv4(inner, L4_TCP, payload, fill);
    memset(buf, 0, 14);
    buf[0] = 0x02, buf[6] = 0x02, buf[11] = 3;
    put16(buf + 12, 0x0800);
    uint8_t* ip = buf + 14;
    const size_t udp_len = 8 + 8 + in_len;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(20 + udp_len));
    ip[8] = 64, ip[9] = L4_UDP;
    ip[12] = 192, ip[13] = 168, ip[15] = 1, ip[16] = 192, ip[17] = 168, ip[19] = 2;
    uint8_t* udp = ip + 20;
    put16(udp, 33333), put16(udp + 2, 4789), put16(udp + 4, (uint16_t)udp_len), put16(udp + 6, 0);
    uint8_t* vx = udp + 8;
    memset(vx, 0, 8);
    vx[0] = 0x08, vx[6] = 0x42;
    memcpy(vx + 8, inner, in_len);
    if (fill) {
        ref_fill_ipv4(ip);
        ref_fill_l4(udp, (uint32_t)udp_len, L4_UDP, ref_pseudo4(ip, L4_UDP, (uint16_t)udp_len));
    }
    return 14 + 20 + udp_len;
}

/* Ethernet + IPv6 + hop-by-hop (8 B) + TCP or UDP. */
static size_t build_ipv6(uint8_t* buf, uint8_t proto, size_t payload, int fill) {
    memset(buf, 0, 14);
    buf[0] = 0x02, buf[6] = 0x02;
    put16(buf + 12, 0x86DD);
    uint8_t* ip = buf + 14;
    const size_t l4h = proto == L4_TCP ? 20 : 8, l4_len = l4h + payload;
    memset(ip, 0, 48);
    ip[0] = 0x60;
    put16(ip + 4, (uint16_t)(8 + l4_len));
    ip[6] = 0; /* hop-by-hop */
    ip[7] = 64;
    for (int i = 0; i < 16; ++i) ip[8 + i] = (uint8_t)(0x20 + i), ip[24 + i] = (uint8_t)(0x40 + i);
    ip[40] = proto; /* HBH next header; length 0 = 8 bytes, PadN follows */
    ip[42] = 1, ip[43] = 4;
    uint8_t* l4 = ip + 48;
    memset(l4, 0, l4h);
    put16(l4, 1000), put16(l4 + 2, 2000);
    if (proto == L4_TCP)
        l4[12] = 5 << 4;
    else
        put16(l4 + 4, (uint16_t)l4_len);
    for (size_t i = 0; i < payload; ++i) l4[l4h + i] = (uint8_t)(i ^ 0x5A);
    if (fill) ref_fill_l4(l4, (uint32_t)l4_len, proto, ref_pseudo6(ip, proto, (uint32_t)l4_len));
    return 14 + 48 + l4_len;
}

static void setup_ports(void) {
    struct rte_ring* ab = rte_ring_create("ab", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    struct rte_ring* ba = rte_ring_create("ba", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (!ab || !ba) abort();
    const int a = rte_eth_from_rings("ringA", &ba, 1, &ab, 1, SOCKET_ID_ANY);
    const int b = rte_eth_from_rings("ringB", &ab, 1, &ba, 1, SOCKET_ID_ANY);
    if (a < 0 || b < 0) abort();
    g_a = (uint16_t)a, g_b = (uint16_t)b;
    const uint16_t ports[2] = {g_a, g_b};
    for (int i = 0; i < 2; ++i) {
        struct rte_eth_conf conf;
        memset(&conf, 0, sizeof conf);
        if (rte_eth_dev_configure(ports[i], 1, 1, &conf) != 0 ||
            rte_eth_rx_queue_setup(ports[i], 0, 256, SOCKET_ID_ANY, NULL, g_pool) != 0 ||
            rte_eth_tx_queue_setup(ports[i], 0, 256, SOCKET_ID_ANY, NULL) != 0 ||
            rte_eth_dev_start(ports[i]) != 0)
            abort();
    }
}

/* Sends n packets from A, receives them on B. Returns how many were sent;
 * unsent ones stay in pkts[sent..n). */
static uint16_t send_recv(struct rte_mbuf** pkts, uint16_t n, struct rte_mbuf** out,
                          uint16_t* n_out) {
    const uint16_t sent = rte_eth_tx_burst(g_a, 0, pkts, n);
    *n_out = rte_eth_rx_burst(g_b, 0, out, 64);
    return sent;
}

static uint64_t ip_rx(const struct rte_mbuf* m) {
    return m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
}
static uint64_t l4_rx(const struct rte_mbuf* m) {
    return m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
}

static void test_lifecycle(void) {
    struct csum_port_opts o;
    csum_port_opts_init(&o);
    CHECK_EQ(o.rx, 1);
    CHECK_EQ(csum_port_attach(RTE_MAX_ETHPORTS - 1, &o), -EINVAL);
    CHECK_EQ(csum_port_attach(g_a, NULL), -EINVAL);
    o.tx_offloads |= RTE_ETH_TX_OFFLOAD_TCP_TSO; /* not emulated: refused */
    CHECK_EQ(csum_port_attach(g_a, &o), -EINVAL);
    CHECK_EQ(csum_port_detach(g_a), -ENOENT);
    struct csum_port_stats st;
    CHECK_EQ(csum_port_stats_get(g_a, &st), -ENOENT);
    CHECK(strcmp(csum_tx_error_name(CSUM_TX_ERR_L3_LEN_BAD), "l3_len_bad") == 0);
    CHECK(strcmp(csum_tx_error_name(CSUM_TX_ERR_COUNT), "?") == 0);
}

/* TX: every kind of request, filled in software and checked by reference. */
static void test_tx_fill(void) {
    struct csum_port_opts o;
    csum_port_opts_init(&o);
    o.rx = 0;
    CHECK_EQ(csum_port_attach(g_a, &o), 0);
    CHECK_EQ(csum_port_attach(g_a, &o), -EEXIST);
    csum_port_opts_init(&o);
    o.tx_offloads = 0;
    CHECK_EQ(csum_port_attach(g_b, &o), 0); /* RX verify on B */
    CHECK_EQ(csum_port_attached(g_b), 1);

    enum { N = 7 };
    struct frame f[N];
    f[0].len = build_ipv4(f[0].b, L4_TCP, 333, 0);
    f[1].len = build_ipv4(f[1].b, L4_UDP, 1200, 0);
    f[2].len = build_ipv4(f[2].b, L4_SCTP, 240, 0);
    f[3].len = build_ipv6(f[3].b, L4_TCP, 101, 0);
    f[4].len = build_ipv6(f[4].b, L4_UDP, 77, 0);
    f[5].len = build_vxlan(f[5].b, 200, 0);
    f[6].len = build_ipv4(f[6].b, L4_TCP, 1300, 0);
    /* Garbage where the checksums go: the NIC ignores what the field holds. */
    f[0].b[14 + 20 + 16] = 0xAB, f[0].b[14 + 10] = 0xCD;
    struct rte_mbuf *pkts[N], *out[64];
    for (int i = 0; i < N; ++i) {
        pkts[i] = to_mbuf(g_pool, f[i].b, f[i].len, i == 6 ? 61 : 0); /* 6: odd splits */
        struct rte_mbuf* m = pkts[i];
        m->l2_len = 14;
        switch (i) {
            case 0:
            case 6:
                m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM;
                m->l3_len = 20, m->l4_len = 20;
                break;
            case 1:
                m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM;
                m->l3_len = 20;
                break;
            case 2:
                m->ol_flags =
                    RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_SCTP_CKSUM;
                m->l3_len = 20;
                break;
            case 3:
                m->ol_flags = RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_TCP_CKSUM;
                m->l3_len = 48;
                break;
            case 4:
                m->ol_flags = RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
                m->l3_len = 48;
                break;
            case 5:
                m->ol_flags = RTE_MBUF_F_TX_TUNNEL_VXLAN | RTE_MBUF_F_TX_OUTER_IPV4 |
                              RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM |
                              RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM;
                m->outer_l2_len = 14, m->outer_l3_len = 20;
                m->l2_len = 8 + 8 + 14, m->l3_len = 20, m->l4_len = 20;
                break;
        }
    }
    uint16_t n_out;
    CHECK_EQ(send_recv(pkts, N, out, &n_out), N);
    CHECK_EQ(n_out, N);
    const uint64_t served = RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
                            RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM;
    for (int i = 0; i < n_out; ++i) {
        struct rte_mbuf* m = out[i];
        uint8_t b[MAXF];
        const size_t len = from_mbuf(m, b, sizeof b);
        CHECK_EQ(len, f[i].len);
        CHECK_EQ(m->ol_flags & served, 0); /* the PMD saw nothing left to do */
        struct csum_verdict v;
        CHECK_EQ(csum_verdict_get(m, &v), 0);
        CHECK_EQ(v.ip_summed, CSUM_IP_SUMMED_UNNECESSARY);
        for (int k = 0; k < v.n_layers; ++k) CHECK_EQ(v.layers[k].status, CSUM_STATUS_GOOD);
        if (i <= 2 || i == 6) {
            const uint8_t proto = i == 1 ? L4_UDP : i == 2 ? L4_SCTP : L4_TCP;
            const uint16_t l4_len = (uint16_t)(len - 34);
            CHECK(ref_ipv4_ok(b + 14));
            CHECK(ref_l4_ok(b + 34, l4_len, proto, ref_pseudo4(b + 14, proto, l4_len)));
            CHECK_EQ(ip_rx(m), RTE_MBUF_F_RX_IP_CKSUM_GOOD);
            CHECK_EQ(l4_rx(m), RTE_MBUF_F_RX_L4_CKSUM_GOOD);
            CHECK_EQ(v.csum_level, 0);
        } else if (i == 3 || i == 4) {
            const uint8_t proto = i == 3 ? L4_TCP : L4_UDP;
            const uint32_t l4_len = (uint32_t)(len - 62);
            CHECK(ref_l4_ok(b + 62, l4_len, proto, ref_pseudo6(b + 14, proto, l4_len)));
            CHECK_EQ(l4_rx(m), RTE_MBUF_F_RX_L4_CKSUM_GOOD);
            CHECK_EQ(ip_rx(m), RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN); /* IPv6 has none */
        } else {
            const uint8_t *oip = b + 14, *udp = oip + 20, *iip = udp + 16 + 14, *tcp = iip + 20;
            const uint16_t udp_len = get16(udp + 4), tcp_len = (uint16_t)(get16(iip + 2) - 20);
            CHECK(ref_ipv4_ok(oip));
            CHECK(ref_l4_ok(udp, udp_len, L4_UDP, ref_pseudo4(oip, L4_UDP, udp_len)));
            CHECK(ref_ipv4_ok(iip));
            CHECK(ref_l4_ok(tcp, tcp_len, L4_TCP, ref_pseudo4(iip, L4_TCP, tcp_len)));
            /* A tunnel: IP/L4 speak for the inner headers, OUTER_* for the outer. */
            CHECK_EQ(ip_rx(m), RTE_MBUF_F_RX_IP_CKSUM_GOOD);
            CHECK_EQ(l4_rx(m), RTE_MBUF_F_RX_L4_CKSUM_GOOD);
            CHECK_EQ(m->ol_flags & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK,
                     RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD);
            CHECK_EQ(m->ol_flags & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD, 0);
            CHECK_EQ(v.csum_level, 1); /* outer UDP and inner TCP */
        }
        rte_pktmbuf_free(m);
    }
    struct csum_port_stats st;
    CHECK_EQ(csum_port_stats_get(g_a, &st), 0);
    CHECK_EQ(st.tx_packets, N);
    CHECK_EQ(st.tx_ip, 5); /* 4 plain + the inner one of the tunnel */
    CHECK_EQ(st.tx_tcp, 4);
    CHECK_EQ(st.tx_udp, 2);
    CHECK_EQ(st.tx_sctp, 1);
    CHECK_EQ(st.tx_outer_ip, 1);
    CHECK_EQ(st.tx_outer_udp, 1);
    CHECK_EQ(st.tx_rejected, 0);
    CHECK_EQ(csum_port_stats_get(g_b, &st), 0);
    CHECK_EQ(st.rx_packets, N);
    CHECK_EQ(st.rx_l4_good, N);
    CHECK_EQ(st.rx_ip_good, 5);
    CHECK_EQ(st.rx_outer_l4_good, 1);
}

/* TX: lengths that don't fit are named errors; the packet comes back unsent
 * and unmodified at the end of the burst, the good ones go out in order. */
static void test_tx_errors(void) {
    enum { N = 8 };
    struct frame f[N];
    struct rte_mbuf *pkts[N], *out[64];
    for (int i = 0; i < N; ++i) {
        f[i].len = build_ipv4(f[i].b, i == 4 ? L4_UDP : L4_TCP, 40 + (size_t)i, 0);
        pkts[i] = to_mbuf(g_pool, f[i].b, f[i].len, 0);
        pkts[i]->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM;
        pkts[i]->l2_len = 14, pkts[i]->l3_len = 20;
    }
    /* 0 and 7 are right. */
    pkts[1]->l3_len = 24;                     /* l3_len_bad */
    pkts[2]->l2_len = 127;                    /* hdr_beyond_packet */
    pkts[3]->ol_flags &= ~RTE_MBUF_F_TX_IPV4; /* ip_type_missing */
    pkts[4]->l4_len = 0;                      /* a UDP packet asking for TCP: */
    pkts[5]->ol_flags = RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_TCP_CKSUM; /* ip_version_mismatch */
    pkts[6]->l4_len = 32; /* l4_len_bad (TCP header is 20) */
    const uint64_t flags_before = pkts[1]->ol_flags;
    uint16_t n_out;
    const uint16_t sent = send_recv(pkts, N, out, &n_out);
    CHECK_EQ(sent, 2);
    CHECK_EQ(n_out, 2);
    for (int i = 0; i < n_out; ++i) rte_pktmbuf_free(out[i]);
    struct csum_port_stats st;
    CHECK_EQ(csum_port_stats_get(g_a, &st), 0);
    CHECK_EQ(st.tx_rejected, 6);
    CHECK_EQ(st.tx_error[CSUM_TX_ERR_L3_LEN_BAD], 1);
    CHECK_EQ(st.tx_error[CSUM_TX_ERR_HDR_BEYOND_PACKET], 1);
    CHECK_EQ(st.tx_error[CSUM_TX_ERR_IP_TYPE_MISSING], 1);
    CHECK_EQ(st.tx_error[CSUM_TX_ERR_L4_PROTO_MISMATCH], 1);
    CHECK_EQ(st.tx_error[CSUM_TX_ERR_IP_VERSION_MISMATCH], 1);
    CHECK_EQ(st.tx_error[CSUM_TX_ERR_L4_LEN_BAD], 1);
    /* The refused ones, untouched: same bytes (checksums still 0), same flags. */
    int found = 0;
    for (int i = sent; i < N; ++i) {
        uint8_t b[MAXF];
        const size_t len = from_mbuf(pkts[i], b, sizeof b);
        for (int k = 1; k < 7; ++k)
            if (len == f[k].len && memcmp(b, f[k].b, len) == 0) ++found;
        if (pkts[i]->l3_len == 24) CHECK_EQ(pkts[i]->ol_flags, flags_before);
        rte_pktmbuf_free(pkts[i]);
    }
    CHECK_EQ(found, 6);
}

/* A tunnel whose outer checksums are left alone (OUTER_IPV4 only): the inner
 * requests are found at outer_l2_len + outer_l3_len + l2_len. */
static void test_tx_inner_only(void) {
    struct frame f;
    f.len = build_vxlan(f.b, 120, 1);
    memset(f.b + 14 + 20 + 16 + 14 + 10, 0, 2);      /* inner IPv4 checksum */
    memset(f.b + 14 + 20 + 16 + 14 + 20 + 16, 0, 2); /* inner TCP checksum */
    struct rte_mbuf *m = to_mbuf(g_pool, f.b, f.len, 0), *out[64];
    m->ol_flags = RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
                  RTE_MBUF_F_TX_TCP_CKSUM;
    m->outer_l2_len = 14, m->outer_l3_len = 20, m->l2_len = 8 + 8 + 14, m->l3_len = 20;
    uint16_t n_out;
    CHECK_EQ(send_recv(&m, 1, out, &n_out), 1);
    CHECK_EQ(n_out, 1);
    if (n_out != 1) return;
    uint8_t b[MAXF];
    from_mbuf(out[0], b, sizeof b);
    const uint8_t *iip = b + 14 + 20 + 16 + 14, *tcp = iip + 20;
    const uint16_t tcp_len = (uint16_t)(get16(iip + 2) - 20);
    CHECK(ref_ipv4_ok(iip));
    CHECK(ref_l4_ok(tcp, tcp_len, L4_TCP, ref_pseudo4(iip, L4_TCP, tcp_len)));
    CHECK(memcmp(b, f.b, 14 + 20 + 16 + 14) == 0); /* outer headers untouched */
    rte_pktmbuf_free(out[0]);
}

/* RX: corrupted checksums come out BAD, as a NIC reports them; a tunnel's
 * outer and inner are told apart. */
static void test_rx_flags(void) {
    enum { N = 6 };
    struct frame f[N];
    f[0].len = build_ipv4(f[0].b, L4_TCP, 100, 1);
    f[1].len = build_ipv4(f[1].b, L4_TCP, 100, 1);
    f[1].b[14 + 11] ^= 1; /* IPv4 header */
    f[2].len = build_ipv4(f[2].b, L4_SCTP, 100, 1);
    f[2].b[60] ^= 1; /* SCTP payload */
    f[3].len = build_vxlan(f[3].b, 64, 1);
    f[3].b[f[3].len - 1] ^= 1; /* inner payload: inner TCP and outer UDP bad */
    f[4].len = build_vxlan(f[4].b, 64, 1);
    f[4].b[14 + 8] ^= 1; /* outer TTL: outer IPv4 bad */
    f[5].len = build_ipv4(f[5].b, L4_UDP, 100, 1);
    memset(f[5].b + 34 + 6, 0, 2); /* no UDP checksum */
    struct rte_mbuf *pkts[N], *out[64];
    for (int i = 0; i < N; ++i) pkts[i] = to_mbuf(g_pool, f[i].b, f[i].len, 0);
    uint16_t n_out;
    CHECK_EQ(send_recv(pkts, N, out, &n_out), N);
    CHECK_EQ(n_out, N);
    if (n_out != N) return;
    CHECK_EQ(ip_rx(out[0]), RTE_MBUF_F_RX_IP_CKSUM_GOOD);
    CHECK_EQ(l4_rx(out[0]), RTE_MBUF_F_RX_L4_CKSUM_GOOD);
    CHECK_EQ(ip_rx(out[1]), RTE_MBUF_F_RX_IP_CKSUM_BAD);
    CHECK_EQ(l4_rx(out[1]), RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN); /* under a bad IP header */
    CHECK_EQ(l4_rx(out[2]), RTE_MBUF_F_RX_L4_CKSUM_BAD);
    CHECK_EQ(ip_rx(out[3]), RTE_MBUF_F_RX_IP_CKSUM_GOOD);
    CHECK_EQ(l4_rx(out[3]), RTE_MBUF_F_RX_L4_CKSUM_BAD);
    CHECK_EQ(out[3]->ol_flags & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK,
             RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD);
    CHECK(out[4]->ol_flags & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD);
    CHECK_EQ(l4_rx(out[5]), RTE_MBUF_F_RX_L4_CKSUM_GOOD);
    struct csum_verdict v;
    CHECK_EQ(csum_verdict_get(out[2], &v), 0);
    CHECK_EQ(v.ip_summed, CSUM_IP_SUMMED_NONE);
    CHECK_EQ(csum_verdict_get(out[5], &v), 0);
    CHECK_EQ(v.layers[1].status, CSUM_STATUS_ZERO);
    for (int i = 0; i < n_out; ++i) rte_pktmbuf_free(out[i]);
}

/* A PMD that names the tunnel in packet_type but checked only the outer
 * headers (net_tap: IP/L4 GOOD, no OUTER_* flag): IP/L4 come out as the inner
 * headers' statuses and OUTER_* as the outer ones', not the PMD's GOOD. */
static void test_rx_flags_outer_only_pmd(void) {
    enum { N = 3 };
    struct frame f[N];
    f[0].len = build_vxlan(f[0].b, 64, 1);
    f[0].b[14 + 20 + 16 + 14 + 8] ^= 1; /* inner TTL: inner IPv4 bad, outer UDP bad */
    f[1].len = build_vxlan(f[1].b, 64, 1);
    f[1].b[f[1].len - 1] ^= 1;             /* inner payload: inner TCP bad */
    f[2].len = build_vxlan(f[2].b, 64, 1); /* intact */
    const uint32_t ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP |
                           RTE_PTYPE_TUNNEL_VXLAN | RTE_PTYPE_INNER_L2_ETHER |
                           RTE_PTYPE_INNER_L3_IPV4 | RTE_PTYPE_INNER_L4_TCP;
    struct rte_mbuf *pkts[N], *out[64];
    for (int i = 0; i < N; ++i) {
        pkts[i] = to_mbuf(g_pool, f[i].b, f[i].len, 0);
        pkts[i]->packet_type = ptype;
        pkts[i]->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    }
    uint16_t n_out;
    CHECK_EQ(send_recv(pkts, N, out, &n_out), N);
    CHECK_EQ(n_out, N);
    if (n_out != N) return;
    CHECK_EQ(ip_rx(out[0]), RTE_MBUF_F_RX_IP_CKSUM_BAD);
    CHECK_EQ(l4_rx(out[0]), RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN); /* under a bad IP header */
    CHECK_EQ(out[0]->ol_flags & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK,
             RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD);
    CHECK_EQ(ip_rx(out[1]), RTE_MBUF_F_RX_IP_CKSUM_GOOD);
    CHECK_EQ(l4_rx(out[1]), RTE_MBUF_F_RX_L4_CKSUM_BAD);
    CHECK_EQ(ip_rx(out[2]), RTE_MBUF_F_RX_IP_CKSUM_GOOD);
    CHECK_EQ(l4_rx(out[2]), RTE_MBUF_F_RX_L4_CKSUM_GOOD);
    CHECK_EQ(out[2]->ol_flags & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK,
             RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD);
    for (int i = 0; i < N; ++i) CHECK_EQ(out[i]->ol_flags & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD, 0);
    for (int i = 0; i < n_out; ++i) rte_pktmbuf_free(out[i]);
}

/* Requests the options leave to the hardware pass through untouched; after
 * detach nothing is served at all. */
static void test_passthrough_and_detach(void) {
    CHECK_EQ(csum_port_detach(g_a), 0);
    struct csum_port_opts o;
    csum_port_opts_init(&o);
    o.rx = 0;
    o.tx_offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM; /* TCP: "the hardware's" */
    CHECK_EQ(csum_port_attach(g_a, &o), 0);
    struct frame f;
    f.len = build_ipv4(f.b, L4_TCP, 64, 0);
    struct rte_mbuf *m = to_mbuf(g_pool, f.b, f.len, 0), *out[64];
    m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM;
    m->l2_len = 14, m->l3_len = 20;
    uint16_t n_out;
    CHECK_EQ(send_recv(&m, 1, out, &n_out), 1);
    CHECK_EQ(n_out, 1);
    uint8_t b[MAXF];
    from_mbuf(out[0], b, sizeof b);
    CHECK(ref_ipv4_ok(b + 14));
    CHECK_EQ(get16(b + 34 + 16), 0); /* untouched */
    CHECK_EQ(out[0]->ol_flags & RTE_MBUF_F_TX_L4_MASK, RTE_MBUF_F_TX_TCP_CKSUM);
    CHECK_EQ(out[0]->ol_flags & RTE_MBUF_F_TX_IP_CKSUM, 0);
    struct csum_port_stats st;
    CHECK_EQ(csum_port_stats_get(g_a, &st), 0);
    CHECK_EQ(st.tx_to_hw, 1);
    rte_pktmbuf_free(out[0]);

    CHECK_EQ(csum_port_detach(g_a), 0);
    CHECK_EQ(csum_port_detach(g_b), 0);
    CHECK_EQ(csum_port_detach(g_b), -ENOENT);
    m = to_mbuf(g_pool, f.b, f.len, 0);
    m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
    m->l2_len = 14, m->l3_len = 20;
    CHECK_EQ(send_recv(&m, 1, out, &n_out), 1);
    CHECK_EQ(n_out, 1);
    from_mbuf(out[0], b, sizeof b);
    CHECK_EQ(get16(b + 14 + 10), 0);
    CHECK_EQ(ip_rx(out[0]), RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN);
    rte_pktmbuf_free(out[0]);
}

int main(void) {
    eal_start("port_attach_test", NULL, NULL);
    g_pool = rte_pktmbuf_pool_create("pa", 2047, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    if (g_pool == NULL) return 1;
    setup_ports();
    test_lifecycle();
    test_tx_fill();
    test_tx_errors();
    test_tx_inner_only();
    test_rx_flags();
    test_rx_flags_outer_only_pmd();
    test_passthrough_and_detach();
    rte_eth_dev_stop(g_a);
    rte_eth_dev_stop(g_b);
    CHECK_EQ(rte_mempool_in_use_count(g_pool), 0);
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("port_attach: all checks passed\n");
    return 0;
}
