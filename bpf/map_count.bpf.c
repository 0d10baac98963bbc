/* How many entries a map holds, without walking it: `headstart metrics` and `status`
 * at a million entries. Hash maps, LRU ones included, keep a per-CPU element count
 * (inserts, deletes and LRU evictions: kernel/bpf/hashtab.c), which only a BPF program
 * can read, through the bpf_map_sum_elem_count kfunc. A bpf_map iterator visits every
 * map of the system and writes its id and count. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

extern __s64 bpf_map_sum_elem_count(const struct bpf_map *map) __ksym;

/* One record per map of the system; the tool picks its own by id. */
struct hs_map_count {
	__u32 id;
	__u32 pad;
	__s64 entries;
};

SEC("iter/bpf_map")
int hs_map_count(struct bpf_iter__bpf_map *ctx)
{
	struct bpf_map *map = ctx->map;
	struct hs_map_count rec = {};

	if (!map)
		return 0;
	rec.id = map->id;
	rec.entries = bpf_map_sum_elem_count(map);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
