/* Host tests of the path table's key (bpf/lib/path_key.h): IPv6 peers cut to their
 * prefix, IPv4 (mapped) and NAT64 peers kept whole, and the knob's edges. */
#include <string.h>
#include "../../bpf/lib/path_key.h"
#include "check.h"

static void addr(__u8 b[16], const char *hex32)
{
	int i;
	unsigned v;

	for (i = 0; i < 16; i++) {
		sscanf(hex32 + 2 * i, "%2x", &v);
		b[i] = (__u8)v;
	}
}

static int keyed(const char *in, __u32 prefix_len, const char *want)
{
	__u8 b[16], w[16];

	addr(b, in);
	addr(w, want);
	hs_path_key(b, prefix_len);
	return !memcmp(b, w, 16);
}

#define A "20010db8aaaabbbbccccddddeeeeffff"  /* 2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff */

static void test_ipv6_prefixes(void)
{
	CHECK(keyed(A, 64, "20010db8aaaabbbb0000000000000000"), "/64 keeps the subnet");
	CHECK(keyed(A, 48, "20010db8aaaa00000000000000000000"), "/48");
	CHECK(keyed(A, 56, "20010db8aaaabb000000000000000000"), "/56: a whole byte");
	CHECK(keyed(A, 60, "20010db8aaaabbb00000000000000000"), "/60: half a byte");
	CHECK(keyed(A, 33, "20010db8800000000000000000000000"), "/33: one bit of the third group");
	CHECK(keyed(A, 32, "20010db8000000000000000000000000"), "/32, the shortest");
	CHECK(keyed(A, 127, "20010db8aaaabbbbccccddddeeeefffe"), "/127: all but the last bit");
	CHECK(keyed(A, 128, A), "/128: the whole address");
	CHECK(keyed(A, 31, A), "below the shortest: whole (not a provider's worth)");
	CHECK(keyed(A, 0, A), "a never-written knob: whole");
	CHECK(keyed(A, 200, A), "out of range: whole");
}

static void test_ipv4_kept_whole(void)
{
	CHECK(keyed("00000000000000000000ffff0a4d0101", 64, "00000000000000000000ffff0a4d0101"), "IPv4 mapped: whole");
	CHECK(keyed("0064ff9b0000000000000000c0000201", 64, "0064ff9b0000000000000000c0000201"), "NAT64 64:ff9b::/96: whole");
	CHECK(keyed("0064ff9b0001000000000000c0000201", 64, "0064ff9b000100000000000000000000"), "64:ff9b:1::/48 is not the well-known prefix: cut");
	CHECK(keyed("00000000000000000000fffe0a4d0101", 64, "00000000000000000000000000000000"), "one bit off the mapped prefix: an IPv6 address, cut");
}

int main(void)
{
	test_ipv6_prefixes();
	test_ipv4_kept_whole();
	return check_report();
}
