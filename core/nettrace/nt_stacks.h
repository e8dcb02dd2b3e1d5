/*
 * nt_stacks.h — the stacks of a StackBlock, kept until the next sequence
 * point (events refer to them by id; the format forbids a reference across
 * a sequence point). The instruction pointers are widened to 64 bits as
 * they are stored. Memory is bounded (NT_STACKS_MAX_BYTES of IPs,
 * NT_STACKS_MAX_COUNT stacks); stacks past the bounds are counted and not
 * kept (their events are delivered without a stack). Not thread-safe; owned by the reader.
 */
#ifndef NT_STACKS_H
#define NT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "nt_u64map.h"

#define NT_STACKS_MAX_BYTES (256u << 20)   /* IPs kept between two sequence points */
#define NT_STACKS_MAX_COUNT (1u << 22)     /* stacks kept between two sequence points */

struct nt_stack_ent { size_t off; uint32_t depth; };

struct nt_stacks {
  struct nt_u64map index;       /* stack id -> entry */
  struct nt_stack_ent *v;
  size_t n, cap;
  uint64_t *ips;                /* all entries' IPs */
  size_t nips, capips;
  uint64_t read;                /* stacks read (whole stream) */
  uint64_t dropped;             /* not kept: over the memory bound */
};

/* A StackBlock body: i32 FirstId, i32 Count, Count x (i32 size, size bytes of
 * IPs of ptr_size). 0, or -1 when malformed or out of memory (*why says
 * which). */
int nt_stacks_add_block(struct nt_stacks *s, const uint8_t *body, size_t len, int ptr_size, const char **why);
/* The IPs of stack id (leaf first) and their count; NULL if unknown. The
 * pointer is valid until the next add or clear. */
const uint64_t *nt_stacks_get(const struct nt_stacks *s, uint32_t id, uint32_t *depth);
/* Forget every stack (at a sequence point). */
void nt_stacks_clear(struct nt_stacks *s);
void nt_stacks_free(struct nt_stacks *s);

#endif /* NT_STACKS_H */
