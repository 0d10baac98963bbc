/* Host harness: a struct_ops program is a plain C function. */
#ifndef HS_HOST_BPF_TRACING_H
#define HS_HOST_BPF_TRACING_H
#define BPF_PROG(name, args...) name(args)
#endif
