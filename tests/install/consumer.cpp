// A program outside the repo, built only from the installed headers and
// pkg-config --cflags --libs libcsum.
#include <csum/crc32c.h>
#include <csum/inet.h>

#include <cstdio>

int main() {
    const unsigned crc = csum::crc32c("123456789", 9);
    const unsigned char hdr[20] = {0x45, 0, 0,  20, 0, 0, 0,  0, 64, 17,
                                   0,    0, 10, 0,  0, 1, 10, 0, 0,  2};
    std::printf("crc32c=%08x ipv4_cksum=%04x\n", crc, csum::ipv4_hdr_cksum(hdr, 20));
    return crc == 0xE3069283u ? 0 : 1;
}
