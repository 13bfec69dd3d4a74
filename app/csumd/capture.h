// --capture-bad: every packet judged bad or malformed goes to a pcapng file
// written with rte_pcapng, the reason in the packet's comment. Workers share
// one file under a lock; bad packets are the exception, not the rate.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include <rte_mbuf.h>
#include <rte_pcapng.h>

#include "csum/counter.h"

namespace csumd {

class BadCapture {
  public:
    // nullptr with *err set if the file or its mbuf pool can't be made.
    static BadCapture* open(const std::string& path, std::string* err);
    ~BadCapture();

    // Copies m with a comment naming why it is bad; the original is untouched.
    void write(uint16_t port, uint16_t queue, const rte_mbuf* m, const std::string& reason);

    uint64_t written() const { return written_.get(); }
    uint64_t failed() const { return failed_.get(); }

  private:
    BadCapture() = default;
    rte_pcapng_t* pcapng_ = nullptr;
    rte_mempool* pool_ = nullptr;
    std::mutex mu_;
    csum::Counter written_, failed_;
};

// The reason for a verdict, e.g. "tcp bad" or "malformed: udp_len_mismatch";
// empty if the packet has nothing wrong.
std::string bad_reason(const rte_mbuf* m, int verdict_field);

}  // namespace csumd
