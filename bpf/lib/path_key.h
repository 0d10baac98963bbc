/* The path table's key for a peer (issue "Trustworthy path state", the threat model's
 * "many addresses"), pure so that host tests pin it and the tool computes the same key.
 * An IPv6 host picks its own interface identifier, rotates it (privacy addresses,
 * RFC 8981) and may hold any number of them: keyed by the whole address, one client
 * with a /64 could fill the LRU table, evicting every other peer's entry, and a phone
 * whose address changed daily had no history. Keyed by its first prefix_len bits (64:
 * the subnet one access link serves, as NAT serves one IPv4 address), a /64 is one
 * entry and a /48 at most 65,536. IPv4 peers (mapped, ::ffff:0:0/96) and IPv4 peers
 * translated by NAT64 (64:ff9b::/96, RFC 6052) keep their whole address: their last
 * 32 bits are the host. */
#ifndef HS_PATH_KEY_H
#define HS_PATH_KEY_H

#include "types.h"

#define HS_PREFIX_MIN 32   /* shorter prefixes would merge whole providers */
#define HS_PREFIX_MAX 128

/* Bytes [from, to) are zero. */
HS_INLINE int hs_zero_bytes(const __u8 b[16], int from, int to)
{
	int i;

	for (i = from; i < to; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Cuts an address (IPv6, or IPv4 mapped) to its table key in place. A prefix_len
 * outside [HS_PREFIX_MIN, HS_PREFIX_MAX) (128: whole addresses; a never-written knob:
 * 0) keeps it whole. */
HS_INLINE void hs_path_key(__u8 b[16], __u32 prefix_len)
{
	int i, v4_mapped, nat64;

	if (prefix_len < HS_PREFIX_MIN || prefix_len >= HS_PREFIX_MAX)
		return;
	v4_mapped = hs_zero_bytes(b, 0, 10) && b[10] == 0xff && b[11] == 0xff;
	nat64 = !b[0] && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && hs_zero_bytes(b, 4, 12);
	if (v4_mapped || nat64)
		return;
	for (i = 0; i < 16; i++) {
		__u32 first_bit = (__u32)i * 8;

		if (first_bit >= prefix_len)
			b[i] = 0;
		else if (first_bit + 8 > prefix_len)
			b[i] &= (__u8)(0xff << (8 - (prefix_len - first_bit)));
	}
}

#endif
