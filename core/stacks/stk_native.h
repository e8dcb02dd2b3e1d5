/* stk_native.h — (private to core/stacks) native frames: the modules of
 * each process from LTTng-UST's statedump, resolved with libdwfl. */
#ifndef STK_NATIVE_H
#define STK_NATIVE_H

#include <stddef.h>
#include <stdint.h>

struct stk_module;
struct stk_native { struct stk_module *m; size_t n, cap; };

/* A lttng_ust_statedump:bin_info module of pid. 0, or -1 when out of memory. */
int stk_native_add(struct stk_native *n, int32_t pid, uint64_t base, uint64_t memsz, const char *path, int is_pic);
size_t stk_native_modules(const struct stk_native *n, int32_t pid);
/* ip of pid: 1 with the function's name in out; 0 with "module+0xOFF" in out
 * and *why (one line, NULL if none) when the module has no symbol for it;
 * -1 when ip is in no module of pid. caller: ip is a return address. */
int stk_native_resolve(struct stk_native *n, int32_t pid, uint64_t ip, int caller, char *out, size_t outlen,
                       const char **why);
void stk_native_free(struct stk_native *n);

#endif /* STK_NATIVE_H */
