/* Fixed-width types for the pure algorithm headers, which compile both into BPF
 * programs (where vmlinux.h defines __u32 and friends) and into host unit tests. */
#ifndef HS_TYPES_H
#define HS_TYPES_H

#ifdef __BPF__
/* vmlinux.h, included first by every BPF program, provides the types. */
#define HS_INLINE static __always_inline
#else
#include <stdint.h>
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
#define HS_INLINE static inline
#endif

#define HS_USEC_PER_SEC 1000000ULL

/* A global BPF subprogram: the verifier checks it once, apart from its callers,
 * whose branches it would otherwise multiply (inlined into min_tso_segs, the jump made
 * s_bbr's take 1 s of `load`'s 3). Its pointers are tagged: the socket the hook was
 * given (trusted), memory of its type's size (never NULL). */
#define HS_SUBPROG __attribute__((noinline))  /* returning an int: this kernel takes no void one */

#endif
