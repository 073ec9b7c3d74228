/* fetch/address.c: which internet addresses a crawl for a stranger must
 * not reach (wn_crawl_options.refuse_private): the host itself, the
 * networks behind it, and the link-local services (a cloud's metadata
 * service at 169.254.169.254 hands out credentials). The address blocks
 * are IANA's special-purpose registries (RFC 6890 and its updates). */
#include "fetch/fetch.h"

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

static const char *ipv4_kind(const uint8_t a[4]) {
  const uint32_t v = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
  static const struct {
    uint32_t net;
    unsigned bits;
    const char *kind;
  } blocks[] = {
      {0x00000000u, 8, "unspecified (0.0.0.0/8)"},
      {0x0a000000u, 8, "private (10.0.0.0/8)"},
      {0x64400000u, 10, "shared (100.64.0.0/10)"},
      {0x7f000000u, 8, "loopback"},
      {0xa9fe0000u, 16, "link-local (169.254.0.0/16, cloud metadata)"},
      {0xac100000u, 12, "private (172.16.0.0/12)"},
      {0xc0000000u, 24, "reserved (192.0.0.0/24)"},
      {0xc0a80000u, 16, "private (192.168.0.0/16)"},
      {0xc6120000u, 15, "reserved (198.18.0.0/15)"},
      {0xe0000000u, 4, "multicast"},
      {0xf0000000u, 4, "reserved (240.0.0.0/4)"},
  };
  for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) {
    const uint32_t mask = blocks[i].bits ? ~0u << (32 - blocks[i].bits) : 0;
    if ((v & mask) == blocks[i].net)
      return blocks[i].kind;
  }
  return NULL;
}

const char *wn_ip_kind(int family, const void *addr) {
  if (family == AF_INET)
    return ipv4_kind(addr);
  if (family != AF_INET6)
    return "not an internet address";
  const uint8_t *a = addr;
  static const uint8_t zero[16];
  if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1))
    return a[15] ? "loopback" : "unspecified (::)";
  /* An IPv4 address inside IPv6: ::ffff:a.b.c.d (mapped) and
   * 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address. */
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
  if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
    return ipv4_kind(a + 12);
  if ((a[0] & 0xfe) == 0xfc)
    return "private (fc00::/7)";
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
    return "link-local (fe80::/10)";
  if (a[0] == 0xff)
    return "multicast";
  return NULL;
}
