/* The fleet agent's way into the table (src/fleet.rs): a syscall program the agent
 * runs (BPF_PROG_RUN) with another server's entry for one peer. It merges the entry
 * in the kernel under the rules of lib/fleet.h, where the controllers' own stores are
 * made, and returns its verdict (also written into the context). And a restore's way
 * into the prefixes (hs_prefix_learn). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "path_table.h"
#include "lib/fleet.h"

char _license[] SEC("license") = "GPL";

SEC("syscall")
int hs_fleet_apply(struct hs_fleet_entry *in)
{
	struct hs_config cfg = hs_get_config();
	struct hs_fleet_entry e = *in;
	struct hs_path *old, out;
	__u16 verdict;

	old = bpf_map_lookup_elem(&hs_paths, &e.peer);
	verdict = hs_fleet_merge(old, &e, bpf_ktime_get_boot_ns(), cfg.max_age_s,
				 (__u64)cfg.store_cap_mbps * 125000, &out);
	if (verdict == HS_FLEET_DELETED)
		bpf_map_delete_elem(&hs_paths, &e.peer);
	else if (verdict == HS_FLEET_APPLIED && old)
		hs_write_stored(old, &out);
	else if (verdict == HS_FLEET_APPLIED && bpf_map_update_elem(&hs_paths, &e.peer, &out, BPF_NOEXIST))
		verdict = HS_FLEET_OLDER;  /* a flow here made it meanwhile: as new */
	if (verdict == HS_FLEET_APPLIED)
		hs_prefix_note(&e.peer, &out);  /* the fleet's entries teach the prefixes too */
	in->verdict = verdict;
	return verdict;
}

/* After a restore (src/bpf/mod.rs, table_restore): the restored entry of one peer, in
 * the table now, teaches its prefix as its store once did (a restore writes the table
 * directly; without this, prefix fallback would start cold after every reboot). */
SEC("syscall")
int hs_prefix_learn(struct hs_fleet_entry *in)
{
	struct hs_peer peer = in->peer;  /* a map key from the stack, not the context */
	struct hs_path *e = bpf_map_lookup_elem(&hs_paths, &peer);

	if (!e)
		return 0;
	hs_prefix_note(&peer, e);
	return 1;
}
