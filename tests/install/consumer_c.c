/* A C11 program outside the repo, built with gcc from the installed
 * csum/csum.h and `pkg-config --cflags --libs libcsum`: kernels, then the
 * engine on a real mbuf under a real EAL. */
#include <csum/csum.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

int main(void) {
    if (csum_crc32c("123456789", 9) != 0xE3069283u) return 1;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "--file-prefix=csum_consumer_c_%d", (int)getpid());
    char* argv[] = {"consumer_c",  "--no-pci",       "--no-huge", "-m", "128",
                    "--no-shconf", "--no-telemetry", "-l",        "0",  "--log-level=lib.eal:error",
                    prefix};
    if (rte_eal_init((int)(sizeof argv / sizeof argv[0]), argv) < 0) return 2;
    struct rte_mempool* mp = rte_pktmbuf_pool_create("c", 63, 0, 0, 2048, SOCKET_ID_ANY);
    struct csum_engine_config cfg;
    csum_engine_config_init(&cfg);
    cfg.mode = CSUM_MODE_FILL;
    struct csum_engine* e = NULL;
    if (mp == NULL || csum_engine_create(&cfg, &e) != 0) return 3;
    /* Ethernet + IPv4 + UDP "hello", checksums zero: the engine fills them. */
    static const unsigned char frame[] = {
        2, 0,  0,    0,    0,    1,    2,  0,  0, 0, 0,   2,   0x08, 0x00, 0x45, 0,
        0, 33, 0,    1,    0,    0,    64, 17, 0, 0, 10,  0,   0,    1,    10,   0,
        0, 2,  0x30, 0x39, 0x13, 0x88, 0,  13, 0, 0, 'h', 'e', 'l',  'l',  'o'};
    struct rte_mbuf* m = rte_pktmbuf_alloc(mp);
    memcpy(rte_pktmbuf_append(m, sizeof frame), frame, sizeof frame);
    if (csum_engine_process(e, NULL, NULL, &m, 1) != 1) return 4;
    cfg.mode = CSUM_MODE_VERIFY;
    struct csum_engine* v = NULL;
    if (csum_engine_create(&cfg, &v) != 0 || csum_engine_process(v, NULL, NULL, &m, 1) != 1)
        return 5;
    struct csum_verdict vd;
    if (csum_verdict_get(m, &vd) != 0) return 6;
    printf("consumer_c: %s level %u, %u layers (%s %s, %s %s)\n", csum_ip_summed_name(vd.ip_summed),
           vd.csum_level, vd.n_layers, csum_layer_proto_name(vd.layers[0].proto),
           csum_layer_status_name(vd.layers[0].status), csum_layer_proto_name(vd.layers[1].proto),
           csum_layer_status_name(vd.layers[1].status));
    const int ok = vd.ip_summed == CSUM_IP_SUMMED_UNNECESSARY && vd.n_layers == 2 &&
                   vd.layers[1].status == CSUM_STATUS_GOOD;
    rte_pktmbuf_free(m);
    csum_engine_destroy(e);
    csum_engine_destroy(v);
    rte_eal_cleanup();
    return ok ? 0 : 7;
}
