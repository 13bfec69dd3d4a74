// Real mbufs and chains of any segmentation, from a real mempool, and a check
// that every mbuf went back to its pool.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>
#include <rte_mbuf.h>

namespace csum::test {

// A pktmbuf pool with no per-lcore cache, so the free count is exact.
class TestPool {
  public:
    explicit TestPool(unsigned n_mbufs = 1023, uint16_t data_room = 2048 + RTE_PKTMBUF_HEADROOM);
    ~TestPool();
    TestPool(const TestPool&) = delete;
    TestPool& operator=(const TestPool&) = delete;

    rte_mempool* get() const { return pool_; }
    unsigned size() const { return size_; }
    unsigned in_use() const;

  private:
    rte_mempool* pool_ = nullptr;
    unsigned size_ = 0;
};

// Builds a chain holding `bytes`, one segment per entry of seg_lens (which
// must sum to bytes.size(); zero-length segments are allowed). Data in each
// segment starts at headroom + `misalign`. Returns nullptr if the pool is dry.
rte_mbuf* make_chain(rte_mempool* pool, std::span<const uint8_t> bytes,
                     std::span<const uint32_t> seg_lens, uint16_t misalign = 0);

// A single-segment mbuf holding bytes.
rte_mbuf* make_linear(rte_mempool* pool, std::span<const uint8_t> bytes, uint16_t misalign = 0);

// Reads a whole chain back into a vector.
std::vector<uint8_t> chain_bytes(const rte_mbuf* m);

// Splits total into n segment lengths (n>=1), at random points; may emit zeros
// when allow_empty.
std::vector<uint32_t> random_split(uint32_t total, unsigned n, std::mt19937& rng,
                                   bool allow_empty = true);

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng);

// Base fixture: a fresh pool per test, and at TearDown an assertion that every
// mbuf taken from it was returned.
class MbufTest : public testing::Test {
  protected:
    void SetUp() override;
    void TearDown() override;
    rte_mempool* pool() const { return pool_->get(); }

  private:
    std::unique_ptr<TestPool> pool_;
};

}  // namespace csum::test
