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

#endif
