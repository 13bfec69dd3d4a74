// Fixtures for tests that force a kernel: the kernel active before the test
// is forced again after it, so that later tests see the calibrated choice.
#pragma once

#include "csum/crc32c.h"
#include "csum/inet.h"
#include "support/mbuf_helpers.h"

namespace csum::test {

class InetKernelTest : public MbufTest {
  protected:
    void TearDown() override {
        inet_force_kernel(kernel_);
        MbufTest::TearDown();
    }
    InetKernel kernel_ = inet_active_kernel();
};

class Crc32cKernelTest : public MbufTest {
  protected:
    void TearDown() override {
        crc32c_force_kernel(kernel_);
        MbufTest::TearDown();
    }
    Crc32cKernel kernel_ = crc32c_active_kernel();
};

}  // namespace csum::test
