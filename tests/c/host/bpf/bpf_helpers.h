/* Host harness: libbpf's map declarations and the BPF helpers the controllers call,
 * on the host. Maps are kept in one table keyed by (map, key bytes): hash and LRU
 * maps as plain hashes (the tests stay far below max_entries), arrays filled with
 * zeros up to max_entries, socket storage keyed by the socket. Time is the harness's
 * virtual clock (host_now_ns). */
#ifndef HS_HOST_BPF_HELPERS_H
#define HS_HOST_BPF_HELPERS_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SEC(name)
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __ksym
#define __kconfig
#define __weak __attribute__((weak))
#define __arg_trusted
#define __arg_nonnull
#define __uint(name, val) int (*name)[val]
#define __type(name, val) __typeof__(val) *name

enum { LIBBPF_PIN_NONE, LIBBPF_PIN_BY_NAME };
enum {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_SK_STORAGE = 24,
	BPF_MAP_TYPE_RINGBUF = 27,
};
enum { BPF_ANY = 0, BPF_NOEXIST = 1, BPF_EXIST = 2 };
#define BPF_F_NO_PREALLOC 1U
#define BPF_SK_STORAGE_GET_F_CREATE 1ULL

static __u64 host_now_ns;

struct host_map_entry {
	const void *map;
	size_t key_size;
	unsigned char key[48];
	void *value;
};

static struct host_map_entry host_entries[4096];
static int host_entry_count;

static struct host_map_entry *host_find(const void *map, const void *key, size_t key_size)
{
	for (int i = 0; i < host_entry_count; i++)
		if (host_entries[i].map == map && host_entries[i].key_size == key_size &&
		    !memcmp(host_entries[i].key, key, key_size))
			return &host_entries[i];
	return NULL;
}

static void *host_insert(const void *map, const void *key, size_t key_size, size_t value_size)
{
	struct host_map_entry *e = &host_entries[host_entry_count++];

	if (host_entry_count > (int)(sizeof(host_entries) / sizeof(host_entries[0])) || key_size > sizeof(e->key))
		abort();
	e->map = map;
	e->key_size = key_size;
	memcpy(e->key, key, key_size);
	/* Never freed: a program may hold a value it looked up after a delete (RCU). */
	e->value = calloc(1, value_size);
	return e->value;
}

static void *host_lookup(const void *map, int type, size_t key_size, size_t value_size, size_t max_entries,
			 const void *key)
{
	struct host_map_entry *e = host_find(map, key, key_size);

	if (e)
		return e->value;
	if ((type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY) && *(const __u32 *)key < max_entries)
		return host_insert(map, key, key_size, value_size);
	return NULL;
}

static long host_update(const void *map, size_t key_size, size_t value_size, const void *key, const void *value,
			__u64 flags)
{
	struct host_map_entry *e = host_find(map, key, key_size);
	void *v;

	if (e && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!e && flags == BPF_EXIST)
		return -ENOENT;
	v = e ? e->value : host_insert(map, key, key_size, value_size);
	memcpy(v, value, value_size);
	return 0;
}

static long host_delete(const void *map, const void *key, size_t key_size)
{
	struct host_map_entry *e = host_find(map, key, key_size);

	if (!e)
		return -ENOENT;
	*e = host_entries[--host_entry_count];
	return 0;
}

/* Ring buffers: what the programs output, in order, for the tests to read (one ring:
 * the controllers have one); full at 256 records, as a ring no one drains. */
#define BPF_RB_NO_WAKEUP 1ULL
static unsigned char host_ring[256][64];
static int host_ring_count;

static inline long bpf_ringbuf_output(void *ring, void *data, __u64 size, __u64 flags)
{
	(void)ring;
	(void)flags;
	if (host_ring_count >= 256 || size > sizeof(host_ring[0]))
		return -EAGAIN;
	memcpy(host_ring[host_ring_count++], data, size);
	return 0;
}

/* Every entry of every map goes: a fresh machine. */
static void host_maps_reset(void)
{
	host_entry_count = 0;
	host_ring_count = 0;
}

#define HOST_MAP_INTS(m, member) (sizeof(*(m)->member) / sizeof(int))
#define bpf_map_lookup_elem(m, k) \
	host_lookup((m), HOST_MAP_INTS(m, type), sizeof(*(m)->key), sizeof(*(m)->value), HOST_MAP_INTS(m, max_entries), (k))
#define bpf_map_update_elem(m, k, v, f) host_update((m), sizeof(*(m)->key), sizeof(*(m)->value), (k), (v), (f))
#define bpf_map_delete_elem(m, k) host_delete((m), (k), sizeof(*(m)->key))
#define bpf_sk_storage_get(m, sk, init, f) host_sk_storage((m), (sk), sizeof(*(m)->value), (f))

static inline void *host_sk_storage(const void *map, const void *sk, size_t value_size, __u64 flags)
{
	struct host_map_entry *e = host_find(map, &sk, sizeof(sk));

	if (e)
		return e->value;
	return (flags & BPF_SK_STORAGE_GET_F_CREATE) ? host_insert(map, &sk, sizeof(sk), value_size) : NULL;
}

static inline __u64 bpf_ktime_get_boot_ns(void)
{
	return host_now_ns;
}

/* HZ = 1000 (host_kernel.h defines CONFIG_HZ). */
static inline __u64 bpf_jiffies64(void)
{
	return host_now_ns / 1000000ULL;
}

/* The one option the controllers set: SO_MAX_PACING_RATE (an unsigned int, ~0U
 * unlimited). */
static inline long bpf_setsockopt(void *sk, int level, int optname, void *optval, int optlen)
{
	struct sock *s = sk;
	__u32 v;

	if (level != 1 || optname != 47 || optlen != (int)sizeof(v))
		return -EINVAL;
	memcpy(&v, optval, sizeof(v));
	s->sk_max_pacing_rate = v == ~0U ? ~0UL : v;
	return 0;
}

#endif
