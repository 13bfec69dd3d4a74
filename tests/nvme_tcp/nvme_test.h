// Shared fixture and expectations for the NVMe/TCP tracker tests.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "csum/nvme_tcp.h"
#include "nvme_tcp/pdu_builder.h"
#include "support/mbuf_helpers.h"

namespace csum::test {

// Where each PDU's digests end in a stream, to know which segment reports them.
struct PduSpan {
    uint32_t start, end;  // [start, end) in the stream
    const Pdu* pdu;
};
std::vector<PduSpan> layout(std::span<const Pdu> pdus, uint32_t first = 0);

// Expected per-segment results for a stream cut at `cuts` (segment k is
// [cuts[k], cuts[k+1])), assuming framing is known from the first byte.
struct SegExpect {
    unsigned pdus = 0, hd_good = 0, hd_bad = 0, dd_good = 0, dd_bad = 0;
};
std::vector<SegExpect> expect_segments(std::span<const PduSpan> spans,
                                       std::span<const uint32_t> cuts);

class NvmeTest : public MbufTest {
  protected:
    NvmeTracker& tracker(NvmeTrackerConfig cfg = {}) {
        trackers_.push_back(std::make_unique<NvmeTracker>(cfg));
        trackers_.back()->set_pdu_log(&log_);
        log_.count = log_.dropped = 0;
        return *trackers_.back();
    }
    void clear_log() { log_.count = log_.dropped = 0; }
    // A Wire on test_key(port) whose SYN t has seen.
    Wire connect(NvmeTracker& t, uint16_t port) {
        Wire w(t, pool(), test_key(port));
        w.syn();
        return w;
    }

  public:
    rte_mempool* pool_for_test() const { return pool(); }
    std::span<const NvmePduRecord> log_for_test() const { return log(); }

  protected:
    std::span<const NvmePduRecord> log() const { return {log_.records, log_.count}; }
    // The PDU log must show exactly these PDUs, in order, with these verdicts.
    void expect_log(std::span<const Pdu> pdus, size_t from = 0) const;

    std::vector<std::unique_ptr<NvmeTracker>> trackers_;
    std::vector<NvmePduRecord> log_buf_ = std::vector<NvmePduRecord>(65536);
    NvmePduLog log_{log_buf_.data(), log_buf_.size(), 0, 0};
};

NvmeDigestStatus expected_hd(const Pdu& p);
NvmeDigestStatus expected_dd(const Pdu& p);

// All PDU types in one direction (negotiation from the leading ICResp).
std::vector<Pdu> all_types(bool hd, bool dd, std::mt19937& rng);

// A random stream: ICResp negotiating hd/dd, then n PDUs of random type
// (C2HData, CapsuleCmd, CapsuleResp, H2CData; with_control adds R2T and
// TermReq) carrying 1..max_data bytes; C2HData pads are 4 * rng() % pad_choices.
// each(pdu) runs after every PDU is added (e.g. to corrupt some).
std::vector<Pdu> random_pdus(bool hd, bool dd, int n, uint32_t max_data, unsigned pad_choices,
                             bool with_control, std::mt19937& rng,
                             const std::function<void(Pdu&)>& each = {});

}  // namespace csum::test
