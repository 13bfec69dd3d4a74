// --verdict-log: one JSON object per received packet, in arrival order per
// port. Workers write a burst's lines at once under a lock (a debug path).
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include <rte_mbuf.h>

namespace csumd {

class VerdictLog {
  public:
    // Returns nullptr with *err set if the file can't be opened.
    static VerdictLog* open(const std::string& path, std::string* err);
    ~VerdictLog();

    // Appends the burst's verdicts; seq is the port's running packet index.
    void write_burst(uint16_t port, uint16_t queue, uint64_t seq, rte_mbuf* const* pkts, uint16_t n,
                     int verdict_field);

  private:
    explicit VerdictLog(FILE* f) : f_(f) {}
    FILE* f_;
    std::mutex mu_;
    std::string buf_;
};

}  // namespace csumd
