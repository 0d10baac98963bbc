/* Host harness: byte order as the kernel's helpers give it. */
#ifndef HS_HOST_BPF_ENDIAN_H
#define HS_HOST_BPF_ENDIAN_H
/* Not <arpa/inet.h>: its struct in6_addr is vmlinux.h's too. */
#define bpf_ntohs(x) __builtin_bswap16(x)
#define bpf_htons(x) __builtin_bswap16(x)
#define bpf_ntohl(x) __builtin_bswap32(x)
#define bpf_htonl(x) __builtin_bswap32(x)
#define htons(x) bpf_htons(x)
#define htonl(x) bpf_htonl(x)
#endif
