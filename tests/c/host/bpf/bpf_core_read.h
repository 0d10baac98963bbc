/* Host harness: CO-RE reads are plain reads. */
#ifndef HS_HOST_BPF_CORE_READ_H
#define HS_HOST_BPF_CORE_READ_H
#define BPF_CORE_READ_BITFIELD(s, field) ((s)->field)
#endif
