#include "nvme_tcp/stream.h"

#include <algorithm>
#include <cstring>

#include "csum/crc32c.h"

namespace csum::nvme {
namespace {

using Status = NvmeDigestStatus;

// One more of a counter, in the tracker's totals and the connection's.
[[gnu::always_inline]] inline void bump(StreamCtx& c, uint64_t NvmeStreamCounts::*f) {
    ++(c.st->*f);
    ++(c.cs->*f);
}

[[gnu::always_inline]] inline void count(StreamCtx& c, bool header, Status st) {
    NvmeDigestCounts& k = header ? c.r->hdgst : c.r->ddgst;
    switch (st) {
        case Status::good:
            ++k.good;
            bump(c, header ? &NvmeStreamCounts::hdgst_good : &NvmeStreamCounts::ddgst_good);
            break;
        case Status::bad:
            ++k.bad;
            bump(c, header ? &NvmeStreamCounts::hdgst_bad : &NvmeStreamCounts::ddgst_bad);
            break;
        case Status::unverifiable:
            ++k.unverifiable;
            bump(c, header ? &NvmeStreamCounts::hdgst_unverifiable
                           : &NvmeStreamCounts::ddgst_unverifiable);
            break;
        case Status::filled:
            ++k.filled;
            bump(c, &NvmeStreamCounts::filled);
            break;
        case Status::unfillable:
            ++k.unfillable;
            bump(c, &NvmeStreamCounts::unfillable);
            break;
        case Status::none:
            break;
    }
}

// A PDU that isn't trusted yet, or whose bytes were lost, gets no good/bad.
[[gnu::always_inline]] inline Status verdict(const Stream& s, const StreamCtx& c, bool lost,
                                             uint32_t want) {
    const bool usable = s.trusted && !lost;
    if (c.mode == NvmeMode::fill) return usable ? Status::filled : Status::unfillable;
    if (!usable) return Status::unverifiable;
    return load_le32(s.dig) == want ? Status::good : Status::bad;
}

[[gnu::always_inline]] inline void finish_hd(Stream& s, StreamCtx& c) {
    s.hd_status = verdict(s, c, s.hd_lost || s.hdr_lost, s.hcrc);
    s.hd_done = true;
    count(c, true, s.hd_status);
}

[[gnu::always_inline]] inline void finish_dd(Stream& s, StreamCtx& c) {
    s.dd_status = verdict(s, c, s.dd_lost, s.dcrc);
    s.dd_done = true;
    count(c, false, s.dd_status);
}

[[gnu::always_inline]] inline void complete_pdu(Stream& s, StreamCtx& c) {
    // Digests whose bytes were lost get their verdict here.
    if (s.cur.hd && !s.hd_done) s.hd_lost = true, finish_hd(s, c);
    if (s.cur.dd && !s.dd_done) s.dd_lost = true, finish_dd(s, c);
    ++c.r->pdus;
    bump(c, &NvmeStreamCounts::pdus);
    if (c.log != nullptr) {
        if (c.log->count < c.log->capacity) {
            c.log->records[c.log->count++] =
                NvmePduRecord{s.pdu_seq, s.cur.plen, s.cur.type, c.dir, s.hd_status, s.dd_status};
        } else {
            ++c.log->dropped;
        }
    }
    begin_pdu(s, s.pdu_seq + s.cur.plen);
}

// Enters scanning with `n` bytes (starting at sequence `seq`) still to search.
void enter_scan(Stream& s, const uint8_t* carry, uint32_t n, uint32_t seq) {
    if (n > sizeof s.hdr) n = 0;  // never: a carry is shorter than a header
    if (n > 0) std::memmove(s.hdr, carry, n);
    s.carry_len = static_cast<uint8_t>(n);
    s.pdu_seq = seq;
    s.phase = Phase::scan;
    s.trusted = false;
    s.confirm_left = 0;
}

void desync(StreamCtx& c, NvmeDesyncReason why) {
    ++c.r->desyncs;
    bump(c, &NvmeStreamCounts::desyncs);
    c.r->reason = why;
    ++c.st->desync_by_reason[static_cast<size_t>(why)];
}

// A staged header failed its checks: framing is lost, and the search
// restarts at the header's second byte (the staged bytes are not forwarded
// again, so they are all the scanner gets of them).
void reject_header(Stream& s, StreamCtx& c, NvmeDesyncReason why) {
    if (s.trusted) {
        desync(c, why);
    } else {
        ++c.st->false_candidates;
    }
    enter_scan(s, s.hdr + 1, s.pos - 1, s.pdu_seq + 1);
}

Tri tri(bool on) {
    return on ? Tri::on : Tri::off;
}

// A trusted header is complete (h: its hlen bytes, staged or in place).
[[gnu::always_inline]] inline void header_done(Stream& s, StreamCtx& c, const uint8_t* h) {
    const PduLayout& l = s.cur;
    if (l.hd) s.hcrc = header_crc(h, l.hlen);
    Negotiation& n = *c.neg;
    if (l.type == kIcReq || l.type == kIcResp) {
        // ICResp, sent after ICReq, states what the controller enabled.
        const uint8_t d = h[kIcDgstOffset];
        n.hd = tri(d & 1);
        n.dd = tri(d & 2);
        n.from_ic = true;
    } else if (l.type != kH2CTermReq && l.type != kC2HTermReq) {
        // Handshake missed: learn from what trusted PDUs carry.
        if (n.hd == Tri::unknown) n.hd = tri(l.hd != 0);
        if (n.dd == Tri::unknown && l.data_end > l.data_start) n.dd = tri(l.dd != 0);
    }
}

// The header's hlen bytes are staged.
void on_header(Stream& s, StreamCtx& c) {
    const PduLayout& l = s.cur;
    if (!s.trusted) {
        if (!plausible_header(s.hdr, l)) return reject_header(s, c, NvmeDesyncReason::none);
        if (s.confirm_left > 0) --s.confirm_left;
        if (s.confirm_left == 0) {
            s.trusted = true;
            ++c.r->resyncs;
            bump(c, &NvmeStreamCounts::resyncs);
        }
    }
    if (s.hdr_lost) return;
    if (!s.trusted) {
        if (l.hd) s.hcrc = header_crc(s.hdr, l.hlen);
        return;
    }
    header_done(s, c, s.hdr);
}

// A trusted stream at a PDU boundary whose whole header (and HDGST) lies in
// one contiguous piece of the packet: checked in place, nothing staged.
// Returns bytes consumed, or 0 to leave it to the general path (hostile or
// split headers, fill mode).
[[gnu::always_inline]] inline uint32_t header_in_place(Stream& s, StreamCtx& c, const ByteRun& in,
                                                       uint32_t at) {
    uint32_t n;
    const uint8_t* p = in.peek(at, &n);
    if (p == nullptr || n < kCommonHdrLen) return 0;
    // Straight into s.cur (at pos 0 nothing reads it before the general path
    // checks a header again): a PduLayout copied whole right after
    // check_common wrote it field by field stalls on store forwarding.
    PduLayout& l = s.cur;
    if (!check_data_pdu(p, *c.neg, c.max_plen, &l) &&
        check_common(p, *c.neg, c.max_plen, &l) != NvmeDesyncReason::none)
        return 0;
    const uint32_t need = l.hdr_end();
    if (n < need) return 0;
    s.pdu_seq = in.seq + at;
    header_done(s, c, p);
    s.pos = need;
    if (l.hd) {
        std::memcpy(s.dig, p + l.hlen, kDigestLen);
        finish_hd(s, c);
    }
    if (s.pos == l.plen) complete_pdu(s, c);
    return need;
}

// Bytes of a digest at PDU offset [start, start+4): staged (verify) or
// written (fill). Returns bytes consumed.
uint32_t digest_bytes(Stream& s, StreamCtx& c, const ByteRun& in, uint32_t at, uint32_t start,
                      bool header) {
    const uint32_t k = s.pos - start;
    const uint32_t n = std::min(kDigestLen - k, in.len - at);
    bool& lost = header ? s.hd_lost : s.dd_lost;
    if (c.mode == NvmeMode::verify) {
        in.copy(at, n, tail(s.dig, k));
    } else if (s.trusted && !lost && !(header && s.hdr_lost)) {
        if (in.writable()) {
            // The digest's value is known before its first byte arrives, so
            // each part is written in the segment that carries it.
            uint8_t le[4];
            store_le32(le, header ? s.hcrc : s.dcrc);
            in.write(at, std::span<const uint8_t>(le).subspan(k, n));
            c.r->modified = true;
        } else {
            lost = true;  // replayed bytes were forwarded already
        }
    }
    s.pos += n;
    if (k + n == kDigestLen) header ? finish_hd(s, c) : finish_dd(s, c);
    return n;
}

void run(Stream& s, StreamCtx& c, const ByteRun& in);

// One region's worth of bytes of the current PDU; returns the new `at`.
uint32_t step(Stream& s, StreamCtx& c, const ByteRun& in, uint32_t at) {
    PduLayout& l = s.cur;
    const uint32_t avail = in.len - at;
    uint32_t n;
    if (s.pos == 0 && s.trusted && c.mode == NvmeMode::verify) {
        n = header_in_place(s, c, in, at);
        if (n > 0) return at + n;
    }
    if (s.pos < kCommonHdrLen) {
        if (s.pos == 0) s.pdu_seq = in.seq + at;
        n = std::min(kCommonHdrLen - s.pos, avail);
        in.copy(at, n, tail(s.hdr, s.pos));
        s.pos += n;
        if (s.pos == kCommonHdrLen) {
            const NvmeDesyncReason why = check_common(s.hdr, *c.neg, c.max_plen, &l);
            if (why != NvmeDesyncReason::none) reject_header(s, c, why);
        }
        return at + n;
    }
    if (s.pos < l.hlen) {
        n = std::min(uint32_t{l.hlen} - s.pos, avail);
        in.copy(at, n, tail(s.hdr, s.pos));
        s.pos += n;
        if (s.pos == l.hlen) {
            on_header(s, c);
            if (s.phase != Phase::sync) return at + n;
        }
    } else if (s.pos < l.hdr_end()) {
        n = digest_bytes(s, c, in, at, l.hlen, true);
    } else if (s.pos < l.data_start) {
        n = std::min(l.data_start - s.pos, avail);  // padding, TermReq data
        s.pos += n;
    } else if (s.pos < l.data_end) {
        n = std::min(l.data_end - s.pos, avail);
        // The folding state is carried to the next packet and reduced once,
        // when the data ends. Data whose start went unseen can't be summed.
        if (l.dd && s.trusted && !s.dd_lost) {
            if (s.pos == l.data_start) {
                detail::crc32c_carry_begin(s.dcarry, l.data_end - l.data_start);
                s.dd_on = true;
            }
            if (s.dd_on) {
                in.crc(at, n, s.dcarry);
                if (s.pos + n == l.data_end) {
                    if (detail::crc32c_carry_complete(s.dcarry))
                        s.dcrc = detail::crc32c_carry_end(s.dcarry);
                    else
                        s.dd_lost = true;  // the chain held fewer bytes than it said
                    s.dd_on = false;
                }
            } else {
                s.dd_lost = true;
            }
        }
        s.pos += n;
        // A DDGST that follows in the same piece is staged here, not by one
        // more step (fill mode writes it in digest_bytes).
        if (s.pos == l.data_end && l.dd && c.mode == NvmeMode::verify) {
            uint32_t k;
            const uint8_t* p = in.peek(at + n, &k);
            if (p != nullptr && k >= kDigestLen) {
                std::memcpy(s.dig, p, kDigestLen);
                s.pos += kDigestLen;
                n += kDigestLen;
                finish_dd(s, c);
            }
        }
    } else {
        n = digest_bytes(s, c, in, at, l.data_end, false);
    }
    if (s.pos == l.plen) complete_pdu(s, c);
    return at + n;
}

bool type_byte_ok(uint8_t b) {
    return b <= kC2HData || b == kR2T;
}

// Searches carry || in[at..] for a header that passes every rule (and its
// HDGST, when present and verifying). Returns the new `at`.
uint32_t scan(Stream& s, StreamCtx& c, const ByteRun& in, uint32_t at) {
    uint8_t carry[kStageLen];
    const uint32_t clen = s.carry_len;
    std::memcpy(carry, s.hdr, clen);
    const uint32_t rest = in.len - at;
    const uint32_t vlen = clen + rest;
    const uint32_t vseq = in.seq + at - clen;
    c.st->scanned_bytes += rest;

    // Copies V[p, p+n) into dst; false (nothing usable) if n exceeds dst.
    auto vcopy = [&](uint32_t p, uint32_t n, std::span<uint8_t> dst) {
        if (n > dst.size()) return false;
        if (p < clen) {
            const uint32_t k = std::min(n, clen - p);
            std::memcpy(dst.data(), carry + p, k);
            dst = dst.subspan(k);
            p += k;
            n -= k;
        }
        return n == 0 || in.copy(at + (p - clen), n, dst);
    };
    // Keeps V[p..] (shorter than a header + digest) for the next segment.
    auto keep = [&](uint32_t p) {
        uint8_t tmp[kStageLen];
        const uint32_t n = vlen - p;
        if (vcopy(p, n, tmp))
            enter_scan(s, tmp, n, vseq + p);
        else
            enter_scan(s, nullptr, 0, 0);  // cannot happen: a header is shorter
        return in.len;
    };

    enum class Cand { no, yes, more };
    PduLayout l;
    uint8_t h[kStageLen];
    auto test = [&](uint32_t p) {
        if (vlen - p < kCommonHdrLen) return Cand::more;
        vcopy(p, kCommonHdrLen, h);
        if (check_common(h, *c.neg, c.max_plen, &l) != NvmeDesyncReason::none) return Cand::no;
        const uint32_t need = l.hdr_end();
        if (vlen - p < need) return Cand::more;
        if (!vcopy(p + kCommonHdrLen, need - kCommonHdrLen, tail(h, kCommonHdrLen)))
            return Cand::no;
        if (!plausible_header(h, l)) return Cand::no;
        // A matching HDGST makes a false candidate a 2^-32 event. Fill mode
        // can't use it: the sender left the digests to us.
        if (l.hd && c.mode == NvmeMode::verify && header_crc(h, l.hlen) != load_le32(h + l.hlen))
            return Cand::no;
        return Cand::yes;
    };
    // Takes the candidate at V[p] as a tentative PDU and carries on after its
    // header; its HDGST goes through the normal path.
    auto adopt = [&](uint32_t p) {
        const uint32_t resume = p + l.hlen;
        s.phase = Phase::sync;
        s.carry_len = 0;
        s.trusted = false;
        s.confirm_left = std::max<uint8_t>(c.resync_confirm, 1);
        begin_pdu(s, vseq + p);
        s.cur = l;
        std::memcpy(s.hdr, h, l.hlen);
        s.pos = l.hlen;
        on_header(s, c);
        if (s.phase == Phase::sync && s.pos == l.plen) complete_pdu(s, c);
        if (resume < clen) {
            uint8_t replay[kStageLen];
            const uint32_t rn = clen - resume;
            std::memcpy(replay, carry + resume, rn);
            run(s, c, ByteRun::staged(replay, rn, vseq + resume));
            return at;
        }
        return at + (resume - clen);
    };

    uint32_t p = 0;
    for (; p < clen; ++p) {
        if (!type_byte_ok(carry[p])) continue;
        const Cand r = test(p);
        if (r == Cand::more) return keep(p);
        if (r == Cand::yes) return adopt(p);
    }
    ChunkCursor cur(in, at);
    const uint8_t* ptr;
    uint32_t n;
    while (cur.next(&ptr, &n)) {
        for (uint32_t i = 0; i < n; ++i, ++p) {
            if (!type_byte_ok(ptr[i])) continue;
            const Cand r = test(p);
            if (r == Cand::more) return keep(p);
            if (r == Cand::yes) return adopt(p);
        }
    }
    s.carry_len = 0;
    return in.len;
}

void run(Stream& s, StreamCtx& c, const ByteRun& in, uint32_t at) {
    while (at < in.len) at = s.phase == Phase::sync ? step(s, c, in, at) : scan(s, c, in, at);
}

void run(Stream& s, StreamCtx& c, const ByteRun& in) {
    run(s, c, in, 0);
}

// `g` bytes before the new data were never seen.
void on_gap(Stream& s, StreamCtx& c, uint32_t g) {
    ++c.st->gaps;
    if (s.phase == Phase::scan) {
        s.carry_len = 0;  // the carry no longer joins the new bytes
        return;
    }
    if (!s.trusted) return enter_scan(s, nullptr, 0, 0);
    PduLayout& l = s.cur;
    if (s.pos < kCommonHdrLen) {
        desync(c, NvmeDesyncReason::gap);
        return enter_scan(s, nullptr, 0, 0);
    }
    // PLEN is known: the loss stays inside this PDU unless it passes its end.
    const uint64_t np = uint64_t{s.pos} + g;
    if (np > l.plen) {
        complete_pdu(s, c);
        desync(c, NvmeDesyncReason::gap);
        return enter_scan(s, nullptr, 0, 0);
    }
    if (s.pos < l.hlen) s.hdr_lost = true;
    if (l.hd && s.pos < l.hdr_end()) s.hd_lost = true;
    if (l.dd && np > l.data_start) s.dd_lost = true, s.dd_on = false;
    s.pos = static_cast<uint32_t>(np);
    if (l.hd && !s.hd_done && s.pos >= l.hdr_end()) finish_hd(s, c);
    if (l.dd && !s.dd_done && s.pos >= l.plen) finish_dd(s, c);
    if (s.pos == l.plen) complete_pdu(s, c);
}

}  // namespace

// The segment that ends a trusted PDU's data and starts the next one (with
// 4 KiB PDUs over 1448-B segments, about every third segment): in order,
// verify mode, all bytes in the first mbuf, the data's rest and its DDGST
// inside. The rest of the data, the DDGST, the next header (in place) and
// the start of its data in a straight line, without the region walk; what
// does not fit that shape goes on through step(). False: nothing done.
bool stream_feed_boundary(Stream& s, StreamCtx& c, rte_mbuf* m, uint32_t off, uint32_t len,
                          uint32_t seq) {
    if (s.phase != Phase::sync || seq != s.next_seq || !s.dd_on || !s.trusted ||
        c.mode != NvmeMode::verify || m == nullptr || off > m->data_len || len > m->data_len - off)
        return false;
    const PduLayout& l = s.cur;
    const uint32_t rest = l.data_end - s.pos;  // dd_on: pos inside the data, trusted
    if (s.pos >= l.data_end || rest > len || len - rest < kDigestLen) return false;
    const uint8_t* p = rte_pktmbuf_mtod_offset(m, const uint8_t*, off);
    s.next_seq = seq + len;
    c.st->bytes += len;
    c.cs->bytes += len;
    if (!detail::crc32c_carry_feed_end(s.dcarry, p, rest, &s.dcrc))
        s.dd_lost = true;  // never here: the piece held the rest
    s.dd_on = false;
    std::memcpy(s.dig, p + rest, kDigestLen);
    s.pos = l.data_end + kDigestLen;  // == plen: the DDGST ends a PDU
    finish_dd(s, c);
    complete_pdu(s, c);
    const ByteRun in = ByteRun::packet(m, off, len, seq);
    uint32_t at = rest + kDigestLen;
    if (at < len) {
        const uint32_t n = header_in_place(s, c, in, at);
        at += n;
        const PduLayout& nl = s.cur;
        // The next PDU's data starts right after its header and goes on
        // past this segment: only begins its carry.
        if (n > 0 && at < len && s.pos == nl.data_start && nl.dd &&
            len - at < nl.data_end - nl.data_start) {
            detail::crc32c_carry_begin_feed(s.dcarry, nl.data_end - nl.data_start, p + at,
                                            len - at);
            s.dd_on = true;
            s.pos += len - at;
            at = len;
        }
    }
    if (at < len) run(s, c, in, at);
    return true;
}

void stream_start(Stream& s, uint32_t seq) {
    s = Stream{};
    s.phase = Phase::sync;
    s.trusted = true;
    s.next_seq = seq;
    s.pdu_seq = seq;
    s.isn = seq - 1;
    s.have_isn = true;
}

void stream_feed(Stream& s, StreamCtx& c, rte_mbuf* m, uint32_t off, uint32_t len, uint32_t seq) {
    if (stream_feed_boundary(s, c, m, off, len, seq)) return;
    ByteRun in = ByteRun::packet(m, off, len, seq);
    if (s.phase == Phase::closed || in.len == 0) return;
    if (s.phase == Phase::unknown) {
        // Picked up mid-stream: the first byte need not start a PDU.
        enter_scan(s, nullptr, 0, in.seq);
        s.next_seq = in.seq;
    }
    const int32_t d = static_cast<int32_t>(in.seq - s.next_seq);
    if (d < 0) {
        // Already seen: only bytes past next_seq are new.
        const uint32_t old = static_cast<uint32_t>(-static_cast<int64_t>(d));
        c.r->retransmit = true;
        if (old >= in.len) {
            c.st->retransmitted_bytes += in.len;
            return;
        }
        c.st->retransmitted_bytes += old;
        in.off += old;
        in.len -= old;
        in.seq += old;
    } else if (d > 0) {
        on_gap(s, c, static_cast<uint32_t>(d));
    }
    s.next_seq = in.seq + in.len;
    c.st->bytes += in.len;
    c.cs->bytes += in.len;
    run(s, c, in);
}

}  // namespace csum::nvme
