/* stk_pprof.c — the stack view as a pprof profile (profile.proto, gzipped),
 * for `pprof` and the Perfetto UI. Field numbers from pprof's public
 * proto/profile.proto: Profile{sample_type 1, sample 2, location 4,
 * function 5, string_table 6, default_sample_type 14}, ValueType{type 1,
 * unit 2}, Sample{location_id 1, value 2, label 3}, Label{key 1, str 2,
 * num 3}, Location{id 1, line 4}, Line{function_id 1}, Function{id 1,
 * name 2, system_name 3}.
 *
 * One function and one location per frame (ids: frame index + 1), leaf
 * first as pprof wants; the group (type, reason, kind) is the outermost
 * frame, as in folded stacks, and a label too, with the pid; a sample
 * recorded without a stack has the one frame "[no stack]" under its group. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gcs_pb.h"
#include "stk_view.h"
#include "stk_view_internal.h"

enum { P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_LOCATION = 4, P_FUNCTION = 5, P_STRING_TABLE = 6, P_DEFAULT_TYPE = 14 };
enum { VT_TYPE = 1, VT_UNIT = 2 };
enum { S_LOCATION = 1, S_VALUE = 2, S_LABEL = 3 };
enum { L_KEY = 1, L_STR = 2, L_NUM = 3 };
enum { LOC_ID = 1, LOC_LINE = 4 };
enum { LINE_FUNCTION = 1 };
enum { FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3 };

struct strtab { char **s; size_t n, cap; };

/* The index of s in the table (added if new). Linear: the tables hold a few
 * thousand names at most. -1 when out of memory. */
static long str_index(struct strtab *t, const char *s) {
  for (size_t i = 0; i < t->n; i++)
    if (strcmp(t->s[i], s) == 0) return (long)i;
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    char **ns = realloc(t->s, cap * sizeof *ns);
    if (!ns) return -1;
    t->s = ns;
    t->cap = cap;
  }
  if (!(t->s[t->n] = strdup(s))) return -1;
  return (long)t->n++;
}

static void packed(struct gcs_pb *b, unsigned field, const uint64_t *v, size_t n, struct gcs_pb *tmp) {
  tmp->n = 0;
  for (size_t i = 0; i < n; i++) gcs_pb_varint(tmp, v[i]);
  gcs_pb_msg(b, field, tmp);
}

static int gzip_out(const struct gcs_pb *pb, FILE *out) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
  unsigned char buf[65536];
  z.next_in = pb->p;
  z.avail_in = (uInt)pb->n;
  int rc;
  do {
    z.next_out = buf;
    z.avail_out = sizeof buf;
    rc = deflate(&z, Z_FINISH);
    size_t have = sizeof buf - z.avail_out;
    if (have && fwrite(buf, 1, have, out) != have) { deflateEnd(&z); return -1; }
  } while (rc == Z_OK);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? 0 : -1;
}

int stk_view_pprof(const struct stk_view *v, FILE *out, char *err, size_t errlen) {
  struct strtab st = { 0 };
  struct gcs_pb prof = { 0 }, msg = { 0 }, sub = { 0 }, tmp = { 0 };
  uint64_t *locs = NULL;
  size_t caplocs = 0;
  uint8_t *used = NULL;   /* frame index -> has a function */
  int rc = -1;
  uint32_t maxf = 0;
  for (size_t p = 0; p < v->nprocs; p++)
    for (size_t g = 0; g < v->procs[p].ngroups; g++)
      for (size_t s = 0; s < v->procs[p].groups[g].nstacks; s++)
        for (uint32_t k = 0; k < v->procs[p].groups[g].stacks[s].n; k++)
          if (v->procs[p].groups[g].stacks[s].f[k] + 1 > maxf) maxf = v->procs[p].groups[g].stacks[s].f[k] + 1;
  /* ids: frames 1..maxf, then the synthetic ones (groups' keys, "[no stack]") by string index */
  uint64_t synth = (uint64_t)maxf + 1;
  if (!(used = calloc(maxf ? maxf : 1, 1))) goto oom;
  if (str_index(&st, "") < 0) goto oom;
  /* sample types */
  long t_samples = str_index(&st, "samples"), u_count = str_index(&st, "count");
  long t_bytes = str_index(&st, "alloc_space"), u_bytes = str_index(&st, "bytes");
  long k_pid = str_index(&st, "pid"), k_key = str_index(&st, "key"), nostack = str_index(&st, "[no stack]");
  if (t_samples < 0 || u_count < 0 || t_bytes < 0 || u_bytes < 0 || k_pid < 0 || k_key < 0 || nostack < 0) goto oom;
  gcs_pb_uint(&msg, VT_TYPE, (uint64_t)t_samples);
  gcs_pb_uint(&msg, VT_UNIT, (uint64_t)u_count);
  gcs_pb_msg(&prof, P_SAMPLE_TYPE, &msg);
  if (v->has_bytes) {
    gcs_pb_uint(&msg, VT_TYPE, (uint64_t)t_bytes);
    gcs_pb_uint(&msg, VT_UNIT, (uint64_t)u_bytes);
    gcs_pb_msg(&prof, P_SAMPLE_TYPE, &msg);
  }
  /* samples: one per distinct stack (values summed), a string per key */
  for (size_t p = 0; p < v->nprocs; p++) {
    const struct sv_proc *pr = &v->procs[p];
    for (size_t g = 0; g < pr->ngroups; g++) {
      const struct sv_group *gr = &pr->groups[g];
      long key = str_index(&st, gr->key);
      if (key < 0) goto oom;
      for (size_t s = 0; s <= gr->nstacks; s++) {
        int none = s == gr->nstacks;
        if (none && !gr->stackless) break;
        const struct sv_stack *sk = none ? NULL : &gr->stacks[s];
        size_t n = (none ? 1 : sk->n) + 1;
        if (n > caplocs) {
          uint64_t *nl = realloc(locs, n * sizeof *nl);
          if (!nl) goto oom;
          locs = nl;
          caplocs = n;
        }
        if (none) {
          locs[0] = synth + (uint64_t)nostack;
        } else {
          for (uint32_t k = 0; k < sk->n; k++) { locs[k] = (uint64_t)sk->f[k] + 1; used[sk->f[k]] = 1; }
        }
        locs[n - 1] = synth + (uint64_t)key;
        packed(&msg, S_LOCATION, locs, n, &tmp);
        uint64_t vals[2] = { none ? gr->stackless : sk->samples, none ? gr->stackless_bytes : sk->bytes };
        packed(&msg, S_VALUE, vals, v->has_bytes ? 2 : 1, &tmp);
        gcs_pb_uint(&sub, L_KEY, (uint64_t)k_pid);
        gcs_pb_int(&sub, L_NUM, pr->pid);
        gcs_pb_msg(&msg, S_LABEL, &sub);
        gcs_pb_uint(&sub, L_KEY, (uint64_t)k_key);
        gcs_pb_uint(&sub, L_STR, (uint64_t)key);
        gcs_pb_msg(&msg, S_LABEL, &sub);
        gcs_pb_msg(&prof, P_SAMPLE, &msg);
      }
    }
  }
  /* locations and functions: the frames used, then the synthetic ones */
  size_t nstr_before = st.n;
  for (uint32_t f = 0; f < maxf; f++) {
    if (!used[f]) continue;
    long name = str_index(&st, sv_frame(v, f, NULL));
    if (name < 0) goto oom;
    gcs_pb_uint(&sub, LINE_FUNCTION, (uint64_t)f + 1);
    gcs_pb_uint(&msg, LOC_ID, (uint64_t)f + 1);
    gcs_pb_msg(&msg, LOC_LINE, &sub);
    gcs_pb_msg(&prof, P_LOCATION, &msg);
    gcs_pb_uint(&msg, FN_ID, (uint64_t)f + 1);
    gcs_pb_uint(&msg, FN_NAME, (uint64_t)name);
    gcs_pb_uint(&msg, FN_SYSTEM_NAME, (uint64_t)name);
    gcs_pb_msg(&prof, P_FUNCTION, &msg);
  }
  for (size_t i = 0; i < nstr_before; i++) {   /* keys and "[no stack]" as frames */
    if ((long)i != nostack) {
      int is_key = 0;
      for (size_t p = 0; p < v->nprocs && !is_key; p++)
        for (size_t g = 0; g < v->procs[p].ngroups && !is_key; g++) is_key = strcmp(v->procs[p].groups[g].key, st.s[i]) == 0;
      if (!is_key) continue;
    }
    uint64_t id = synth + i;
    gcs_pb_uint(&sub, LINE_FUNCTION, id);
    gcs_pb_uint(&msg, LOC_ID, id);
    gcs_pb_msg(&msg, LOC_LINE, &sub);
    gcs_pb_msg(&prof, P_LOCATION, &msg);
    gcs_pb_uint(&msg, FN_ID, id);
    gcs_pb_uint(&msg, FN_NAME, i);
    gcs_pb_uint(&msg, FN_SYSTEM_NAME, i);
    gcs_pb_msg(&prof, P_FUNCTION, &msg);
  }
  for (size_t i = 0; i < st.n; i++) gcs_pb_str(&prof, P_STRING_TABLE, st.s[i]);
  gcs_pb_int(&prof, P_DEFAULT_TYPE, v->has_bytes ? t_bytes : t_samples);
  if (prof.oom || msg.oom || sub.oom || tmp.oom) goto oom;
  if (gzip_out(&prof, out) != 0) { snprintf(err, errlen, "write failed"); goto out; }
  rc = 0;
  goto out;
oom:
  snprintf(err, errlen, "out of memory");
out:
  for (size_t i = 0; i < st.n; i++) free(st.s[i]);
  free(st.s);
  free(locs);
  free(used);
  gcs_pb_free(&prof);
  gcs_pb_free(&msg);
  gcs_pb_free(&sub);
  gcs_pb_free(&tmp);
  return rc;
}
