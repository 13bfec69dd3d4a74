#include "capture.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_version.h>

#include "csum/verdict.h"
#include "tsan.h"

namespace csumd {
namespace {

constexpr uint32_t kSnapLen = 16384;
constexpr uint16_t kCommentRoom = 256;

// DPDK 22.11's rte_pcapng_copy has no comment argument: append the comment
// option (code 1) in place of the block trailer, then end-of-options and a
// new trailer, and fix the block length at the front.
bool add_comment(rte_mbuf* mc, const std::string& text) {
    const uint16_t n = static_cast<uint16_t>(std::min<size_t>(text.size(), kCommentRoom - 16));
    const uint16_t padded = static_cast<uint16_t>((n + 3) & ~3u);
    if (rte_pktmbuf_trim(mc, 4) != 0) return false;
    auto* opt = reinterpret_cast<uint8_t*>(
        rte_pktmbuf_append(mc, static_cast<uint16_t>(4 + padded + 4 + 4)));
    if (opt == nullptr) return false;
    const uint16_t code = 1;
    std::memcpy(opt, &code, 2);
    std::memcpy(opt + 2, &n, 2);
    std::memcpy(opt + 4, text.data(), n);
    std::memset(opt + 4 + n, 0, padded - n + 4);  // padding, then opt_endofopt (0, 0)
    auto* block_len = rte_pktmbuf_mtod_offset(mc, uint32_t*, 4);
    *block_len += 4 + padded + 4;
    std::memcpy(opt + 4 + padded + 4, block_len, 4);
    return true;
}

}  // namespace

BadCapture* BadCapture::open(const std::string& path, std::string* err) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        *err = "--capture-bad " + path + ": cannot open for writing";
        return nullptr;
    }
    auto* c = new BadCapture();
    c->pool_ = rte_pktmbuf_pool_create(
        "csumd_capture", 1023, 0, 0,
        static_cast<uint16_t>(rte_pcapng_mbuf_size(kSnapLen) + kCommentRoom), SOCKET_ID_ANY);
    c->pcapng_ = c->pool_ ? rte_pcapng_fdopen(fd, nullptr, nullptr, "csumd",
                                              "packets csumd judged bad or malformed")
                          : nullptr;
    if (c->pcapng_ == nullptr) {
        *err = "--capture-bad " + path + ": " + rte_strerror(rte_errno);
        ::close(fd);
        delete c;
        return nullptr;
    }
    return c;
}

BadCapture::~BadCapture() {
    if (pcapng_) rte_pcapng_close(pcapng_);  // closes the fd
    rte_mempool_free(pool_);
}

void BadCapture::write(uint16_t port, uint16_t queue, const rte_mbuf* m,
                       const std::string& reason) {
    rte_mbuf* mc = rte_pcapng_copy(port, queue, m, pool_, kSnapLen, rte_get_tsc_cycles(),
                                   RTE_PCAPNG_DIRECTION_IN);
    if (mc) tsan_acquire_chain(mc);  // its last user was maybe another worker
    const bool ok = mc != nullptr && add_comment(mc, reason);
    {
        // Several workers write here: the counters are single-writer, so
        // they are only touched under the lock.
        std::lock_guard<std::mutex> lock(mu_);
        if (ok && rte_pcapng_write_packets(pcapng_, &mc, 1) >= 0)
            written_.add();
        else
            failed_.add();
    }
    if (mc) tsan_release_chain(mc);
    rte_pktmbuf_free(mc);  // 22.11's rte_pcapng_write_packets does not free it
}

std::string bad_reason(const rte_mbuf* m, int verdict_field) {
    const csum::PacketVerdict* v = csum::verdict_of(m, verdict_field);
    std::string r;
    if (v->error != 0)
        r = "malformed: " + std::string(csum::to_string(static_cast<csum::ParseError>(v->error)));
    for (int i = 0; i < v->n_layers; ++i) {
        const csum::LayerVerdict l = v->layer(i);
        if (l.status == csum::LayerStatus::bad || l.status == csum::LayerStatus::illegal ||
            l.status == csum::LayerStatus::malformed) {
            if (!r.empty()) r += "; ";
            r += std::string(csum::to_string(l.proto)) + " " +
                 std::string(csum::to_string(l.status));
        }
    }
    return r;
}

}  // namespace csumd
