/* The C API of libcsum, for C11 programs (DPDK's own language).
 *
 * Build with `pkg-config --cflags --libs libcsum`. Every function returns
 * a negative errno value on failure and never lets a C++ exception out.
 * Functions taking an rte_mbuf need the EAL up; the pure kernels do not.
 *
 * Sum conventions follow csum/inet.h: 16-bit words loaded in host order,
 * so a finished checksum is stored into the packet as is, with no htons.
 */
#ifndef CSUM_CSUM_H
#define CSUM_CSUM_H

#include <stddef.h>
#include <stdint.h>

#include "csum/export.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/* ---- CRC32C (Castagnoli; crc32c("123456789") == 0xE3069283) ---------- */

CSUM_API uint32_t csum_crc32c(const void* data, size_t len);
/* Continues a CRC: csum_crc32c_extend(csum_crc32c(a), b) == crc32c(a || b). */
CSUM_API uint32_t csum_crc32c_extend(uint32_t crc, const void* data, size_t len);
/* CRC of packet bytes [off, off+len) of a segment chain, extending *crc
 * (pass 0 to start). -ERANGE if the range passes pkt_len or the chain is
 * shorter than pkt_len; *crc is then left alone. */
CSUM_API int csum_crc32c_mbuf(const struct rte_mbuf* m, uint32_t off, uint32_t len, uint32_t* crc);

/* ---- Internet checksum (RFC 1071) ------------------------------------- */

/* Folded 16-bit sum, not complemented (like rte_raw_cksum). */
CSUM_API uint16_t csum_inet_raw(const void* data, size_t len);
/* 32-bit partial sum that composes: adds data (from an even offset) to sum. */
CSUM_API uint32_t csum_inet_partial(const void* data, size_t len, uint32_t sum);
/* Folded sum of packet bytes [off, off+len) of a chain (odd splits right).
 * -ERANGE if the range passes pkt_len. */
CSUM_API int csum_inet_mbuf(const struct rte_mbuf* m, uint32_t off, uint32_t len, uint16_t* sum);
/* Pseudo-header partial sums; src/dst point at the addresses as in the packet. */
CSUM_API uint32_t csum_inet_pseudo_ipv4(const void* src, const void* dst, uint8_t proto,
                                        uint32_t l4_len);
CSUM_API uint32_t csum_inet_pseudo_ipv6(const void* src, const void* dst, uint8_t proto,
                                        uint32_t l4_len);
/* Folds a partial sum to 16 bits. */
CSUM_API uint16_t csum_inet_fold(uint32_t sum);
/* The value to store in a TCP/ICMP field: ~fold(sum). */
CSUM_API uint16_t csum_inet_finish(uint32_t sum);
/* As csum_inet_finish for UDP: a computed 0 is stored as 0xFFFF. */
CSUM_API uint16_t csum_inet_finish_udp(uint32_t sum);
/* IPv4 header checksum to store (the field is read as zero); ihl_bytes 20..60. */
CSUM_API uint16_t csum_ipv4_hdr_cksum(const void* hdr, size_t ihl_bytes);

/* ---- Verdicts (Linux's ip_summed / csum_level, per-layer status) ------ */

enum csum_ip_summed {
    CSUM_IP_SUMMED_NONE,
    CSUM_IP_SUMMED_UNNECESSARY, /* csum_level + 1 checksums verified from the outermost */
    CSUM_IP_SUMMED_COMPLETE,
    CSUM_IP_SUMMED_PARTIAL,
};

enum csum_layer_proto {
    CSUM_PROTO_IPV4,
    CSUM_PROTO_TCP,
    CSUM_PROTO_UDP,
    CSUM_PROTO_SCTP,
    CSUM_PROTO_ICMP,
    CSUM_PROTO_ICMPV6,
    CSUM_PROTO_GRE,
    CSUM_PROTO_NVME_HDGST,
    CSUM_PROTO_NVME_DDGST,
    CSUM_PROTO_COUNT
};

enum csum_layer_status {
    CSUM_STATUS_GOOD,
    CSUM_STATUS_BAD,
    CSUM_STATUS_ZERO,         /* UDP without checksum, legal */
    CSUM_STATUS_ILLEGAL,      /* zero UDP checksum over IPv6 */
    CSUM_STATUS_UNVERIFIABLE, /* fragment, truncated, under a bad IPv4 header */
    CSUM_STATUS_MALFORMED,
    CSUM_STATUS_SKIPPED,
    CSUM_STATUS_FILLED,
    CSUM_STATUS_OFFLOADED,
    CSUM_STATUS_PARTIAL, /* holds only the pseudo-header sum: intact, unfilled */
    CSUM_STATUS_COUNT
};

#define CSUM_MAX_VERDICT_LAYERS 12
#define CSUM_PARSE_ERROR_COUNT 29

struct csum_layer {
    uint8_t proto;  /* enum csum_layer_proto */
    uint8_t status; /* enum csum_layer_status */
};

struct csum_verdict {
    uint8_t ip_summed; /* enum csum_ip_summed */
    uint8_t csum_level;
    uint8_t n_layers; /* outermost first */
    uint8_t error;    /* parse error code, 0 when none; see csum_parse_error_name */
    uint16_t csum;    /* COMPLETE: the sum; PARTIAL: csum_start */
    uint16_t csum_offset;
    struct csum_layer layers[CSUM_MAX_VERDICT_LAYERS];
};

/* Reads the verdict the engine (or a port attach) left in m's dynfield.
 * -ENOENT if no engine has registered the field in this process. */
CSUM_API int csum_verdict_get(const struct rte_mbuf* m, struct csum_verdict* out);

CSUM_API const char* csum_ip_summed_name(int v);    /* "CHECKSUM_UNNECESSARY", ... */
CSUM_API const char* csum_layer_proto_name(int v);  /* "ipv4", "nvme-hdgst", ... */
CSUM_API const char* csum_layer_status_name(int v); /* "good", ... */
CSUM_API const char* csum_parse_error_name(int v);  /* "none", "ipv4_truncated", ... */

/* ---- The engine -------------------------------------------------------- */

enum csum_mode {
    CSUM_MODE_IO,     /* touch nothing */
    CSUM_MODE_VERIFY, /* judge every checksum, set verdicts, count */
    CSUM_MODE_FILL,   /* make every checksum right (software or TX offload flags) */
    CSUM_MODE_CSUM,   /* verify, then fill what is missing */
};

#define CSUM_MAX_PORT_LIST 8

struct csum_port_list {
    uint16_t port[CSUM_MAX_PORT_LIST];
    uint8_t n;
};

struct csum_engine_config {
    int mode; /* enum csum_mode */
    int plain_fast_path;
    struct csum_port_list vxlan_ports, geneve_ports, gre_udp_ports, sctp_udp_ports;
    struct csum_port_list udp6_zero_csum_ok; /* RFC 6935 exceptions */
    struct csum_port_list nvme_ports;        /* n == 0: no NVMe/TCP tracker */
    uint8_t max_depth;
    uint32_t nvme_capacity; /* connections tracked */
    uint32_t nvme_max_plen;
};

/* Fills cfg with the engine's defaults (verify mode, VXLAN 4789, ...). */
CSUM_API void csum_engine_config_init(struct csum_engine_config* cfg);

struct csum_engine;

/* -EINVAL for a bad config, -ENOMEM, or -rte_errno if the verdict dynfield
 * can't be registered (EAL not up). */
CSUM_API int csum_engine_create(const struct csum_engine_config* cfg, struct csum_engine** out);
CSUM_API void csum_engine_destroy(struct csum_engine* e);

struct csum_rx_policy {
    int trusted;          /* skip verification, count as skipped */
    uint16_t verify_mask; /* bit per csum_layer_proto to verify */
    int drop_bad;         /* drop bad or malformed packets */
    int complete_in_verdict;
};
/* TX checksum offloads (RTE_ETH_TX_OFFLOAD_{IPV4,TCP,UDP,SCTP}_CKSUM) the
 * departure port does in hardware; the engine fills the rest in software. */
struct csum_tx_policy {
    uint64_t offloads;
};

/* Processes a burst in place (rx/tx may be NULL: defaults). Returns how many
 * packets to forward, moved to the front in order; drops follow for the
 * caller to free. -EINVAL for bad arguments. */
CSUM_API int csum_engine_process(struct csum_engine* e, const struct csum_rx_policy* rx,
                                 const struct csum_tx_policy* tx, struct rte_mbuf** pkts,
                                 uint16_t n);

struct csum_engine_stats {
    uint64_t packets, bytes;
    uint64_t layer[CSUM_PROTO_COUNT][CSUM_STATUS_COUNT];
    uint64_t ip_summed[4];
    uint64_t csum_level[8];
    uint64_t parse_error[CSUM_PARSE_ERROR_COUNT];
    uint64_t drop_bad_checksum, drop_malformed;
    uint64_t sw_filled, hw_offloaded, skipped_trusted;
    uint64_t work_tsc, sum_bytes, crc_bytes;
};

CSUM_API int csum_engine_stats_get(const struct csum_engine* e, struct csum_engine_stats* out);

/* ---- Software checksum offload on an ethdev port ------------------------
 *
 * csum_port_attach installs an RX and a TX callback (rte_eth_add_rx_callback /
 * rte_eth_add_tx_callback) on every configured queue of a port, so that any
 * application gets, in software, what a NIC with checksum offload gives:
 *  - RX: each packet is verified; RTE_MBUF_F_RX_IP_CKSUM_*, _L4_CKSUM_* and
 *    the outer flags are set to GOOD / BAD (NONE for a CHECKSUM_PARTIAL
 *    packet) where the PMD left them UNKNOWN, and the verdict dynfield is
 *    written (csum_verdict_get). For a tunnel the PMD did not parse, IP/L4
 *    describe the innermost headers and OUTER_* the outer ones. A PMD that
 *    names a tunnel in packet_type but sets no OUTER_* flag (net_tap) has
 *    checked the outer headers only: its IP/L4 flags are replaced by the
 *    inner headers' statuses, and OUTER_* set from the outer ones.
 *  - TX: RTE_MBUF_F_TX_IP_CKSUM, TX_TCP/UDP/SCTP_CKSUM, TX_OUTER_IP_CKSUM and
 *    TX_OUTER_UDP_CKSUM are served from l2_len/l3_len/outer_l2_len/outer_l3_len
 *    (l4_len checked when set), full checksums written whatever the field held,
 *    and the served flags cleared. Requests the queue's configured offloads
 *    do in hardware pass through untouched. A request whose lengths do not
 *    fit the packet is counted under a named error and the packet is left
 *    unsent and unmodified at the end of the burst, exactly like a packet
 *    rte_eth_tx_prepare refuses: the application frees it (or retries it).
 *    (After 64 refusals in one burst the rest of the burst is handed back
 *    unsent and untouched too; each attempt is counted.)
 * Attach after the queues are set up (before or after rte_eth_dev_start);
 * detach once no lcore polls the port (after rte_eth_dev_stop).
 */
struct csum_port_opts {
    int rx;               /* verify on RX, set RX flags and verdicts */
    uint64_t tx_offloads; /* RTE_ETH_TX_OFFLOAD_{IPV4,TCP,UDP,SCTP,OUTER_IPV4,OUTER_UDP}_CKSUM
                             to serve in software where the queue lacks them */
    int nvme;             /* RX: NVMe/TCP digests on nvme_port */
    uint16_t nvme_port;   /* 0: 4420 */
};

/* rx on, every TX checksum kind, no NVMe/TCP. */
CSUM_API void csum_port_opts_init(struct csum_port_opts* opts);
/* -EINVAL (bad port or opts), -EEXIST (attached), -ENOTSUP (ethdev built
 * without RTE_ETHDEV_RXTX_CALLBACKS), -ENOMEM, or -rte_errno. */
CSUM_API int csum_port_attach(uint16_t port_id, const struct csum_port_opts* opts);
/* -ENOENT if not attached. */
CSUM_API int csum_port_detach(uint16_t port_id);
/* 1 if attached, 0 if not. */
CSUM_API int csum_port_attached(uint16_t port_id);

enum csum_tx_error {
    CSUM_TX_ERR_HDR_BEYOND_PACKET,   /* a header the lengths point at passes pkt_len */
    CSUM_TX_ERR_IP_TYPE_MISSING,     /* L4 request without TX_IPV4/IPV6 (or OUTER_IPV4/IPV6) */
    CSUM_TX_ERR_IP_VERSION_MISMATCH, /* the header is not the IP version the flags say */
    CSUM_TX_ERR_L3_LEN_BAD,          /* l3_len is not the IPv4 IHL / the IPv6 header chain */
    CSUM_TX_ERR_IP_LEN_BAD,        /* IP total/payload length below the header or past the frame */
    CSUM_TX_ERR_IP_FRAGMENT,       /* L4 checksum asked of a fragment */
    CSUM_TX_ERR_IPV6_ROUTING,      /* routing header whose final destination is unknown */
    CSUM_TX_ERR_L4_PROTO_MISMATCH, /* e.g. TX_TCP_CKSUM on a UDP packet */
    CSUM_TX_ERR_L4_LEN_BAD,        /* L4 shorter than its header, UDP length or l4_len wrong */
    CSUM_TX_ERR_SEGMENT_PAST_BUFFER, /* a segment's data_off + data_len passes its buf_len */
    CSUM_TX_ERR_COUNT
};
CSUM_API const char* csum_tx_error_name(int e); /* "hdr_beyond_packet", ... */

struct csum_port_stats {
    /* RX */
    uint64_t rx_packets;
    uint64_t rx_ip_good, rx_ip_bad, rx_l4_good, rx_l4_bad, rx_l4_none;
    uint64_t rx_outer_ip_bad, rx_outer_l4_good, rx_outer_l4_bad;
    uint64_t rx_work_tsc; /* TSC ticks inside the RX callback */
    /* TX */
    uint64_t tx_packets;                     /* seen by the TX callback */
    uint64_t tx_ip, tx_tcp, tx_udp, tx_sctp; /* checksums written */
    uint64_t tx_outer_ip, tx_outer_udp;
    uint64_t tx_to_hw; /* packets left with requests for the hardware */
    uint64_t tx_rejected;
    uint64_t tx_error[CSUM_TX_ERR_COUNT];
    uint64_t tx_work_tsc;
};
/* Totals over every queue; -ENOENT if not attached. */
CSUM_API int csum_port_stats_get(uint16_t port_id, struct csum_port_stats* out);

#ifdef __cplusplus
}
#endif

#endif /* CSUM_CSUM_H */
