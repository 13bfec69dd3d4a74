/* The C API from C11: kernels against reference sums, the engine over real
 * mbufs (linear and chained with odd splits) under a real EAL. */
#include <csum/csum.h>

#include <errno.h>

#include "capi_util.h"

static struct rte_mempool* g_pool;

static void test_kernels(void) {
    CHECK_EQ(csum_crc32c("123456789", 9), 0xE3069283u);
    CHECK_EQ(csum_crc32c_extend(csum_crc32c("1234", 4), "56789", 5), 0xE3069283u);
    uint8_t buf[1501];
    for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (uint8_t)(i * 31 + 7);
    for (size_t len = 0; len <= sizeof buf; len += 37) {
        CHECK_EQ(csum_crc32c(buf, len), ref_crc32c(buf, len));
        /* Host-order load: the reference's big-endian fold, byte-swapped. */
        const uint16_t be = ref_fold(ref_sum(buf, len, 0));
        CHECK_EQ(csum_inet_raw(buf, len), (uint16_t)(be >> 8 | be << 8));
        CHECK_EQ(csum_inet_fold(csum_inet_partial(buf, len, 0)), csum_inet_raw(buf, len));
    }
    uint8_t frame[256];
    build_ipv4(frame, L4_TCP, 50, 1);
    uint8_t* ip = frame + 14;
    CHECK_EQ(csum_ipv4_hdr_cksum(ip, 20), *(uint16_t*)(ip + 10));
    CHECK_EQ(csum_ipv4_hdr_cksum(ip, 19), 0); /* refused */
    /* The pseudo-header composes with a partial sum to the stored field. */
    uint8_t l4[70];
    memcpy(l4, ip + 20, 70);
    const uint16_t stored = *(uint16_t*)(l4 + 16);
    memset(l4 + 16, 0, 2);
    const uint32_t s = csum_inet_partial(l4, 70, csum_inet_pseudo_ipv4(ip + 12, ip + 16, 6, 70));
    CHECK_EQ(csum_inet_finish(s), stored);
    CHECK_EQ(csum_inet_finish_udp(0xFFFF), 0xFFFF); /* a computed 0 goes out as 0xFFFF */
    uint8_t ip6[40] = {0};                          /* an IPv6 header: the addresses at 8..40 */
    for (int i = 0; i < 32; ++i) ip6[8 + i] = (uint8_t)(i + 1);
    const uint16_t p6 = ref_fold(ref_pseudo6(ip6, 17, 1000));
    CHECK_EQ(csum_inet_fold(csum_inet_pseudo_ipv6(ip6 + 8, ip6 + 24, 17, 1000)),
             (uint16_t)(p6 >> 8 | p6 << 8));
}

static void test_mbuf_walkers(void) {
    uint8_t frame[1600];
    const size_t len = build_ipv4(frame, L4_UDP, 1400, 1);
    const size_t splits[] = {0, 61, 52, 333, 1};
    for (size_t k = 0; k < sizeof splits / sizeof splits[0]; ++k) {
        if (splits[k] == 1) continue; /* too many segments for the pool's patience */
        struct rte_mbuf* m = to_mbuf(g_pool, frame, len, splits[k]);
        uint32_t crc = 0;
        CHECK_EQ(csum_crc32c_mbuf(m, 3, (uint32_t)len - 10, &crc), 0);
        CHECK_EQ(crc, ref_crc32c(frame + 3, len - 10));
        uint16_t sum = 0;
        CHECK_EQ(csum_inet_mbuf(m, 7, (uint32_t)len - 7, &sum), 0);
        CHECK_EQ(sum, csum_inet_raw(frame + 7, len - 7));
        /* Ranges past pkt_len are refused and leave the output alone. */
        crc = 42;
        CHECK_EQ(csum_crc32c_mbuf(m, 0, (uint32_t)len + 1, &crc), -ERANGE);
        CHECK_EQ(crc, 42);
        CHECK_EQ(csum_inet_mbuf(m, (uint32_t)len, 1, &sum), -ERANGE);
        rte_pktmbuf_free(m);
    }
    CHECK_EQ(csum_crc32c_mbuf(NULL, 0, 0, NULL), -EINVAL);
}

static int find_layer(const struct csum_verdict* v, int proto) {
    for (int i = 0; i < v->n_layers; ++i)
        if (v->layers[i].proto == proto) return v->layers[i].status;
    return -1;
}

static void test_engine(void) {
    struct csum_engine_config cfg;
    csum_engine_config_init(&cfg);
    CHECK_EQ(cfg.mode, CSUM_MODE_VERIFY);
    CHECK_EQ(cfg.vxlan_ports.n, 1);
    CHECK_EQ(cfg.vxlan_ports.port[0], 4789);

    struct csum_engine* bad = (struct csum_engine*)1;
    struct csum_engine_config wrong = cfg;
    wrong.mode = 9;
    CHECK_EQ(csum_engine_create(&wrong, &bad), -EINVAL);
    CHECK(bad == NULL);
    wrong = cfg;
    wrong.vxlan_ports.n = 200;
    CHECK_EQ(csum_engine_create(&wrong, &bad), -EINVAL);
    CHECK_EQ(csum_engine_create(NULL, &bad), -EINVAL);

    struct csum_engine* e = NULL;
    CHECK_EQ(csum_engine_create(&cfg, &e), 0);
    if (e == NULL) return;

    /* 0: good TCP, 1: bad IPv4 header, 2: bad TCP, 3: UDP without checksum,
     * 4: good SCTP, 5: bad SCTP, 6: good UDP chained at an odd split,
     * 7: truncated IPv4 (malformed). */
    enum { N = 8 };
    uint8_t f[N][1600];
    size_t len[N];
    len[0] = build_ipv4(f[0], L4_TCP, 100, 1);
    len[1] = build_ipv4(f[1], L4_TCP, 100, 1);
    f[1][14 + 10] ^= 0x55;
    len[2] = build_ipv4(f[2], L4_TCP, 100, 1);
    f[2][14 + 20 + 30] ^= 1;
    len[3] = build_ipv4(f[3], L4_UDP, 64, 1);
    memset(f[3] + 14 + 20 + 6, 0, 2);
    len[4] = build_ipv4(f[4], L4_SCTP, 200, 1);
    len[5] = build_ipv4(f[5], L4_SCTP, 200, 1);
    f[5][14 + 20 + 40] ^= 0x80;
    len[6] = build_ipv4(f[6], L4_UDP, 1200, 1);
    len[7] = build_ipv4(f[7], L4_TCP, 100, 1);
    put16(f[7] + 14 + 2, 1500); /* IP length past the frame */
    ref_fill_ipv4(f[7] + 14);

    struct rte_mbuf* pkts[N];
    for (int i = 0; i < N; ++i) pkts[i] = to_mbuf(g_pool, f[i], len[i], i == 6 ? 61 : 0);
    CHECK_EQ(csum_engine_process(e, NULL, NULL, pkts, N), N);

    struct csum_verdict v;
    CHECK_EQ(csum_verdict_get(pkts[0], &v), 0);
    CHECK_EQ(v.ip_summed, CSUM_IP_SUMMED_UNNECESSARY);
    CHECK_EQ(v.csum_level, 0);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_IPV4), CSUM_STATUS_GOOD);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_TCP), CSUM_STATUS_GOOD);
    CHECK_EQ(csum_verdict_get(pkts[1], &v), 0);
    CHECK_EQ(v.ip_summed, CSUM_IP_SUMMED_NONE);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_IPV4), CSUM_STATUS_BAD);
    CHECK_EQ(csum_verdict_get(pkts[2], &v), 0);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_TCP), CSUM_STATUS_BAD);
    CHECK_EQ(v.ip_summed, CSUM_IP_SUMMED_NONE);
    CHECK_EQ(csum_verdict_get(pkts[3], &v), 0);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_UDP), CSUM_STATUS_ZERO);
    CHECK_EQ(csum_verdict_get(pkts[4], &v), 0);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_SCTP), CSUM_STATUS_GOOD);
    CHECK_EQ(v.ip_summed, CSUM_IP_SUMMED_UNNECESSARY);
    CHECK_EQ(csum_verdict_get(pkts[5], &v), 0);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_SCTP), CSUM_STATUS_BAD);
    CHECK_EQ(csum_verdict_get(pkts[6], &v), 0);
    CHECK(pkts[6]->nb_segs > 10);
    CHECK_EQ(find_layer(&v, CSUM_PROTO_UDP), CSUM_STATUS_GOOD);
    CHECK_EQ(csum_verdict_get(pkts[7], &v), 0);
    CHECK(v.error != 0);
    CHECK(strcmp(csum_parse_error_name(v.error), "ipv4_len_exceeds_frame") == 0);
    CHECK(strcmp(csum_ip_summed_name(CSUM_IP_SUMMED_UNNECESSARY), "CHECKSUM_UNNECESSARY") == 0);
    CHECK(strcmp(csum_layer_proto_name(CSUM_PROTO_SCTP), "sctp") == 0);
    CHECK(strcmp(csum_layer_status_name(CSUM_STATUS_BAD), "bad") == 0);
    CHECK(strcmp(csum_layer_status_name(-3), "?") == 0);

    /* drop_bad: the bad and malformed ones go to the back. */
    struct csum_rx_policy rx = {.trusted = 0, .verify_mask = 0xFFFF, .drop_bad = 1};
    const int kept = csum_engine_process(e, &rx, NULL, pkts, N);
    CHECK_EQ(kept, 4); /* 0, 3, 4, 6 */
    struct csum_engine_stats st;
    CHECK_EQ(csum_engine_stats_get(e, &st), 0);
    CHECK_EQ(st.packets, 2 * N);
    CHECK_EQ(st.drop_bad_checksum, 3);
    CHECK_EQ(st.drop_malformed, 1);
    CHECK_EQ(st.layer[CSUM_PROTO_SCTP][CSUM_STATUS_BAD], 2);
    CHECK(st.crc_bytes > 0);
    for (int i = 0; i < N; ++i) rte_pktmbuf_free(pkts[i]);
    csum_engine_destroy(e);

    /* Fill mode in software: zeroed checksums come back right (reference-checked). */
    cfg.mode = CSUM_MODE_FILL;
    CHECK_EQ(csum_engine_create(&cfg, &e), 0);
    const uint8_t protos[3] = {L4_TCP, L4_UDP, L4_SCTP};
    for (int i = 0; i < 3; ++i) {
        uint8_t fr[1600], out[1600];
        const size_t n = build_ipv4(fr, protos[i], 301, 0); /* checksums left 0 */
        struct rte_mbuf* m = to_mbuf(g_pool, fr, n, 97);
        CHECK_EQ(csum_engine_process(e, NULL, NULL, &m, 1), 1);
        CHECK_EQ(from_mbuf(m, out, sizeof out), n);
        CHECK(ref_ipv4_ok(out + 14));
        CHECK(ref_l4_ok(out + 34, (uint32_t)n - 34, protos[i],
                        ref_pseudo4(out + 14, protos[i], (uint16_t)(n - 34))));
        CHECK_EQ(csum_verdict_get(m, &v), 0);
        CHECK_EQ(find_layer(&v, protos[i] == L4_TCP   ? CSUM_PROTO_TCP
                                : protos[i] == L4_UDP ? CSUM_PROTO_UDP
                                                      : CSUM_PROTO_SCTP),
                 CSUM_STATUS_FILLED);
        rte_pktmbuf_free(m);
    }
    csum_engine_destroy(e);
    csum_engine_destroy(NULL);
    CHECK_EQ(csum_engine_process(NULL, NULL, NULL, NULL, 0), -EINVAL);
    CHECK_EQ(csum_engine_stats_get(NULL, &st), -EINVAL);
}

int main(void) {
    test_kernels(); /* no EAL needed */
    eal_start("capi_test", NULL, NULL);
    g_pool = rte_pktmbuf_pool_create("capi", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    if (g_pool == NULL) {
        fprintf(stderr, "pool: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    test_mbuf_walkers();
    test_engine();
    CHECK_EQ(rte_mempool_in_use_count(g_pool), 0); /* nothing leaked */
    rte_mempool_free(g_pool);
    rte_eal_cleanup();
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("capi: all checks passed\n");
    return 0;
}
