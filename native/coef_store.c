// libjpeg's system-dependent memory module (it replaces jmemnobs.c, which our libjpeg.a also
// carries: linked before the archive, these definitions keep that member out), with a backing
// store that keeps coefficient rows packed in WASM memory instead of in a file.
//
// Why: a progressive JPEG's decoder, and our encoder (progressive, or baseline with Huffman
// tables optimised over the whole image), hold every quantised DCT coefficient of the image
// (2 bytes each, 3 bytes a pixel for 4:2:0). Most of those coefficients are zero, so libjpeg
// gets a window of `pg_jpeg_window` bytes to work in (max_memory_to_use) and swaps the rest
// out here: each block is stored as masks of its nonzero coefficients followed by their values
// as varints (pack_block), about a tenth of its 128 bytes for a photo. A block
// row that would pack larger than it is (noise at high quality) is kept as it is. The
// coefficients come back exactly, so the files written are the same as with everything in
// memory.
//
// libjpeg reads and writes whole coefficient rows at byte offsets into a virtual array, over
// ranges that move (its window restarts where the next access falls), so the store is kept
// by row: a unit is the largest size every component's row is a multiple of.
#define JPEG_INTERNALS
#include <stdlib.h>
#include <string.h>
#include "pixelgate.h" // jpeglib.h brings jpegint.h in under JPEG_INTERNALS
#include <jerror.h>
#include <jmemsys.h>
#include <wasm_simd128.h>

// Coefficient arrays up to this many bytes stay whole in memory; a larger image works in a
// window of this size. 0: everything whole (libjpeg's behaviour without a backing store).
static long window_bytes = 4L << 20;

void pg_jpeg_window(int bytes) { window_bytes = bytes; }

void *jpeg_get_small(j_common_ptr cinfo, size_t size) { (void)cinfo; return malloc(size); }
void jpeg_free_small(j_common_ptr cinfo, void *object, size_t size) { (void)cinfo; (void)size; free(object); }
void *jpeg_get_large(j_common_ptr cinfo, size_t size) { (void)cinfo; return malloc(size); }
void jpeg_free_large(j_common_ptr cinfo, void *object, size_t size) { (void)cinfo; (void)size; free(object); }

long jpeg_mem_init(j_common_ptr cinfo) { (void)cinfo; return window_bytes; }
void jpeg_mem_term(j_common_ptr cinfo) { (void)cinfo; }

// What the virtual arrays may take, whatever else libjpeg has allocated (its tables and row
// buffers are small and were measured with the rest).
size_t jpeg_mem_available(j_common_ptr cinfo, size_t min_bytes_needed, size_t max_bytes_needed, size_t already_allocated) {
  (void)min_bytes_needed;
  (void)already_allocated;
  long most = cinfo->mem->max_memory_to_use;
  return most <= 0 || (size_t)most > max_bytes_needed ? max_bytes_needed : (size_t)most;
}

typedef struct {
  uint8_t *data; // NULL until the unit is first written
  uint32_t size;
  uint32_t capacity;
} PackedUnit;

typedef struct {
  size_t unit_bytes;
  size_t units;
  PackedUnit *packed;
  uint8_t *scratch; // one unit packed at its worst (mask and three-byte values)
} CoefStore;

#define BLOCK_BYTES (DCTSIZE2 * sizeof(JCOEF))
#define WORST_BLOCK_BYTES (1 + 8 + DCTSIZE2 * 3)

// A coefficient as an unsigned number, small either side of zero (0, -1, 1, -2 -> 0, 1, 2, 3),
// in one byte below 128, else two or three of seven bits each.
static uint8_t *put_value(uint8_t *out, int v) {
  uint32_t z = (uint32_t)(v < 0 ? -2 * v - 1 : 2 * v);
  while (z >= 0x80) {
    *out++ = (uint8_t)(z | 0x80);
    z >>= 7;
  }
  *out++ = (uint8_t)z;
  return out;
}

static const uint8_t *get_value(const uint8_t *in, JCOEF *v) {
  uint32_t z = *in++;
  if (z & 0x80) {
    z = (z & 0x7f) | (uint32_t)(*in & 0x7f) << 7;
    if (*in++ & 0x80) z |= (uint32_t)*in++ << 14;
  }
  *v = (JCOEF)(z & 1 ? -(int)((z + 1) >> 1) : (int)(z >> 1));
  return in;
}

// A block: one byte saying which of its 8 rows (natural order) hold a nonzero coefficient, a
// byte per such row saying which of its 8 do, then those coefficients' values. A zero block is
// one byte. The masks come from SIMD compares, 8 coefficients at a time.
static uint8_t *pack_block(const JCOEF *block, uint8_t *out) {
  uint8_t rows[8], *head = out++;
  unsigned present = 0;
  for (int r = 0; r < 8; r++) {
    rows[r] = (uint8_t)wasm_i16x8_bitmask(wasm_i16x8_ne(wasm_v128_load(block + 8 * r), wasm_i16x8_splat(0)));
    if (rows[r]) {
      present |= 1u << r;
      *out++ = rows[r];
    }
  }
  *head = (uint8_t)present;
  for (int r = 0; r < 8; r++)
    for (unsigned m = rows[r]; m; m &= m - 1) out = put_value(out, block[8 * r + __builtin_ctz(m)]);
  return out;
}

static const uint8_t *unpack_block(const uint8_t *in, JCOEF *block) {
  for (int r = 0; r < 8; r++) wasm_v128_store(block + 8 * r, wasm_i16x8_splat(0));
  unsigned present = *in++;
  const uint8_t *masks = in;
  in += __builtin_popcount(present);
  for (unsigned p = present; p; p &= p - 1) {
    JCOEF *row = block + 8 * __builtin_ctz(p);
    for (unsigned m = *masks++; m; m &= m - 1) in = get_value(in, row + __builtin_ctz(m));
  }
  return in;
}

static CoefStore *store_of(backing_store_ptr info) { return (CoefStore *)info->temp_file; }

// The units a read or write covers; libjpeg only moves whole rows, which are whole units.
static size_t first_unit(j_common_ptr cinfo, CoefStore *s, long offset, long count) {
  if (offset < 0 || count < 0 || offset % s->unit_bytes || count % s->unit_bytes ||
      (size_t)(offset + count) / s->unit_bytes > s->units)
    ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
  return (size_t)offset / s->unit_bytes;
}

static void write_units(j_common_ptr cinfo, backing_store_ptr info, void *buffer, long offset, long count) {
  CoefStore *s = store_of(info);
  size_t at = first_unit(cinfo, s, offset, count), blocks = s->unit_bytes / BLOCK_BYTES;
  const uint8_t *raw = buffer;
  for (long done = 0; done < count; done += (long)s->unit_bytes, at++, raw += s->unit_bytes) {
    uint8_t *end = s->scratch;
    for (size_t b = 0; b < blocks; b++) end = pack_block((const JCOEF *)raw + b * DCTSIZE2, end);
    size_t size = (size_t)(end - s->scratch);
    int as_is = size >= s->unit_bytes; // flagged by its size: packed is always smaller
    const uint8_t *from = as_is ? raw : s->scratch;
    if (as_is) size = s->unit_bytes;
    PackedUnit *u = &s->packed[at];
    if (size > u->capacity) {
      free(u->data);
      u->capacity = (uint32_t)(size + size / 4 < s->unit_bytes ? size + size / 4 : s->unit_bytes);
      u->data = malloc(u->capacity);
      if (!u->data) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    memcpy(u->data, from, size);
    u->size = (uint32_t)size;
  }
}

static void read_units(j_common_ptr cinfo, backing_store_ptr info, void *buffer, long offset, long count) {
  CoefStore *s = store_of(info);
  size_t at = first_unit(cinfo, s, offset, count), blocks = s->unit_bytes / BLOCK_BYTES;
  uint8_t *raw = buffer;
  for (long done = 0; done < count; done += (long)s->unit_bytes, at++, raw += s->unit_bytes) {
    const PackedUnit *u = &s->packed[at];
    if (!u->data) {
      memset(raw, 0, s->unit_bytes); // libjpeg reads only rows it wrote; zeros if ever not
    } else if (u->size == s->unit_bytes) {
      memcpy(raw, u->data, s->unit_bytes);
    } else {
      const uint8_t *in = u->data;
      for (size_t b = 0; b < blocks; b++) in = unpack_block(in, (JCOEF *)raw + b * DCTSIZE2);
    }
  }
}

static void close_store(j_common_ptr cinfo, backing_store_ptr info) {
  (void)cinfo;
  CoefStore *s = store_of(info);
  for (size_t i = 0; i < s->units; i++) free(s->packed[i].data);
  free(s->packed);
  free(s->scratch);
  free(s);
}

static size_t gcd(size_t a, size_t b) {
  while (b) {
    size_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Bytes of one coefficient row of each component (jdcoefct.c and jccoefct.c round the width
// in blocks up to the sampling factor), and their greatest common divisor.
static size_t unit_bytes_of(j_common_ptr cinfo) {
  jpeg_component_info *comp = cinfo->is_decompressor ? ((j_decompress_ptr)cinfo)->comp_info : ((j_compress_ptr)cinfo)->comp_info;
  int count = cinfo->is_decompressor ? ((j_decompress_ptr)cinfo)->num_components : ((j_compress_ptr)cinfo)->num_components;
  size_t unit = 0;
  for (int c = 0; c < count; c++)
    unit = gcd(unit, (size_t)jround_up((long)comp[c].width_in_blocks, (long)comp[c].h_samp_factor) * BLOCK_BYTES);
  return unit;
}

// The private part of backing_store_info is a temporary file's; its FILE pointer holds ours.
void jpeg_open_backing_store(j_common_ptr cinfo, backing_store_ptr info, long total_bytes_needed) {
  size_t unit = unit_bytes_of(cinfo);
  if (unit == 0 || total_bytes_needed <= 0 || (size_t)total_bytes_needed % unit) ERREXIT(cinfo, JERR_NO_BACKING_STORE);
  CoefStore *s = calloc(1, sizeof *s);
  if (!s) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
  s->unit_bytes = unit;
  s->units = (size_t)total_bytes_needed / unit;
  s->packed = calloc(s->units, sizeof *s->packed);
  s->scratch = malloc(unit / BLOCK_BYTES * WORST_BLOCK_BYTES);
  if (!s->packed || !s->scratch) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
  info->temp_file = (FILE *)s;
  info->read_backing_store = read_units;
  info->write_backing_store = write_units;
  info->close_backing_store = close_store;
}
