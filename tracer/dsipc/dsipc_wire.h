/*
 * dsipc_wire.h — the diagnostics IPC wire format (internal): the 20-byte
 * message header, little-endian integers, UTF-16 strings, and a bounded
 * buffer that writers append to and readers consume from.
 */
#ifndef DSIPC_WIRE_H
#define DSIPC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define DSIPC_MAGIC "DOTNET_IPC_V1"   /* NUL-padded to 14 bytes */
#define DSIPC_MAGIC_LEN 14
#define DSIPC_HEADER_LEN 20
#define DSIPC_MAX_MESSAGE 65535        /* the header's size is a uint16 */
#define DSIPC_ADVERTISE_MAGIC "ADVR_V1"   /* NUL-padded to 8 bytes */
#define DSIPC_ADVERTISE_LEN 34         /* magic 8, cookie 16, pid 8, padding 2 */

enum {
  DSIPC_SET_EVENTPIPE = 0x02, DSIPC_SET_PROCESS = 0x04, DSIPC_SET_SERVER = 0xFF,
  DSIPC_EP_STOP = 0x01, DSIPC_EP_COLLECT = 0x02, DSIPC_EP_COLLECT2 = 0x03, DSIPC_EP_COLLECT3 = 0x04, DSIPC_EP_COLLECT4 = 0x05,
  DSIPC_PROC_INFO = 0x00, DSIPC_PROC_RESUME = 0x01, DSIPC_PROC_INFO2 = 0x04,
  DSIPC_SERVER_OK = 0x00, DSIPC_SERVER_ERROR = 0xFF,
};

struct dsipc_buf {
  uint8_t *p;
  size_t len, cap, pos;   /* writers append at len; readers consume at pos */
  int bad;                /* overflow (writer) or short read (reader) */
};

void dsipc_put_u8(struct dsipc_buf *b, uint8_t v);
void dsipc_put_u16(struct dsipc_buf *b, uint16_t v);
void dsipc_put_u32(struct dsipc_buf *b, uint32_t v);
void dsipc_put_u64(struct dsipc_buf *b, uint64_t v);
/* UTF-8 in, count of UTF-16 units (with the terminating 0) then the units;
 * NULL writes count 0 (no string). */
void dsipc_put_string(struct dsipc_buf *b, const char *utf8);
/* The header with size 0; dsipc_finish fills in the size. */
void dsipc_begin(struct dsipc_buf *b, uint8_t set, uint8_t id);
int dsipc_finish(struct dsipc_buf *b);

uint8_t dsipc_get_u8(struct dsipc_buf *b);
uint16_t dsipc_get_u16(struct dsipc_buf *b);
uint32_t dsipc_get_u32(struct dsipc_buf *b);
uint64_t dsipc_get_u64(struct dsipc_buf *b);
void dsipc_get_bytes(struct dsipc_buf *b, uint8_t *out, size_t n);
/* A UTF-16 string as UTF-8 into out (cut to outlen - 1 bytes). */
void dsipc_get_string(struct dsipc_buf *b, char *out, size_t outlen);

struct dsipc_header {
  uint16_t size;
  uint8_t set, id;
  uint16_t reserved;
};
/* Decode 20 bytes; -1 if the magic is wrong or size < 20. */
int dsipc_decode_header(const uint8_t *p, struct dsipc_header *h);

#endif
