// Pixelgate's HEVC binding (src/codecs/native/pixelgate-hevc.wasm, built by
// scripts/build-hevc-wasm.sh from Debian's libde265): decodes ONE coded image of a HEIC file
// (a grid tile, or a whole single image) and lends JavaScript its Y, Cb and Cr planes in place,
// so the caller copies a row of tiles into the encoder's band and no whole picture ever exists.
//
// A HEIF image item is its decoder configuration (the hvcC box, whose arrays hold the VPS, SPS
// and PPS NAL units) plus its data: NAL units each preceded by a big-endian length of
// (lengthSizeMinusOne + 1) bytes. Both are copied into this module's memory by the caller.
//
// Before any slice is decoded, every sequence parameter set is checked against the size the
// container declared for the item: a hostile SPS could otherwise make libde265 allocate a
// 65535 x 65535 picture for a few bytes of input. That holds for the hvcC box's parameter sets
// and for those the item's data carries in band: each parameter set NAL unit of the data is
// decoded and checked before the next unit is pushed, so no slice ever meets an unchecked SPS.
#include <stdint.h>
#include <stdlib.h>
#include "libde265/de265.h"
#include "libde265/decctx.h"

// Status codes shared with src/codecs/hevc.ts.
enum { HEVC_OK = 0, HEVC_UNSUPPORTED = 1, HEVC_INVALID = 2, HEVC_NO_MEMORY = 3 };

// Coded pictures are whole minimum coding blocks (at most 64 luma samples) that a conformance
// window may crop; anything larger than the declared size by more than that is refused.
static const int CODED_MARGIN = 64;

static de265_decoder_context *decoder;
static const de265_image *picture;

// HEVC NAL unit types of the parameter sets (VPS, SPS, PPS).
static const int NAL_VPS = 32, NAL_PPS = 34;

static uint32_t read_be(const uint8_t *p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; i++) v = (v << 8) | p[i];
  return v;
}

// Pushes the parameter-set NAL units of an hvcC box's body (after its 4-byte box header and
// type; starting at configurationVersion). Returns the NAL length size of the data, or 0.
static int push_parameter_sets(const uint8_t *hvcc, int size) {
  if (size < 23) return 0;
  int length_size = (hvcc[21] & 3) + 1;
  int arrays = hvcc[22], at = 23;
  for (int a = 0; a < arrays; a++) {
    if (at + 3 > size) return 0;
    int count = (int)read_be(hvcc + at + 1, 2);
    at += 3;
    for (int n = 0; n < count; n++) {
      if (at + 2 > size) return 0;
      int length = (int)read_be(hvcc + at, 2);
      at += 2;
      if (length > size - at) return 0;
      if (de265_push_NAL(decoder, hvcc + at, length, 0, nullptr) != DE265_OK) return 0;
      at += length;
    }
  }
  return length_size == 3 ? 0 : length_size; // 3 is not a valid lengthSizeMinusOne + 1
}

// Decodes whatever has been pushed, until a picture is out (unless `through`: until everything
// pushed is decoded) or libde265 wants more input; false on an error it cannot go past. (Once
// flushed, `more` stays set while a picture waits to be taken, so the loop ends on the picture.)
static bool decode_pushed(bool through = false) {
  int more = 1;
  while (more && (through || !de265_peek_next_picture(decoder))) {
    de265_error err = de265_decode(decoder, &more);
    if (err == DE265_ERROR_WAITING_FOR_INPUT_DATA) return true;
    if (err != DE265_OK) return false;
  }
  return true;
}

// Every SPS read so far fits the declared size (and is 8 to 16 bits deep).
static bool parameter_sets_fit(int max_width, int max_height) {
  decoder_context *ctx = (decoder_context *)decoder;
  bool any = false;
  for (int id = 0; id < DE265_MAX_SPS_SETS; id++) {
    if (!ctx->has_sps(id)) continue;
    const seq_parameter_set *sps = ctx->get_sps(id);
    if (sps->pic_width_in_luma_samples > max_width + CODED_MARGIN || sps->pic_height_in_luma_samples > max_height + CODED_MARGIN) return false;
    any = true;
  }
  return any;
}

extern "C" {

void pg_hevc_release(void);

// Decodes one image item whose container-declared size is width x height. The module owns
// neither buffer. On HEVC_OK the picture's planes are lent until pg_hevc_release.
int pg_hevc_decode(const uint8_t *hvcc, int hvcc_size, const uint8_t *data, int data_size, int width, int height) {
  pg_hevc_release();
  decoder = de265_new_decoder();
  if (!decoder) return HEVC_NO_MEMORY;
  // Pictures are lent to JavaScript, never written out: skip the SEI hash checks.
  de265_set_parameter_bool(decoder, DE265_DECODER_PARAM_BOOL_SEI_CHECK_HASH, 0);
  int length_size = push_parameter_sets(hvcc, hvcc_size);
  if (!length_size || !decode_pushed() || !parameter_sets_fit(width, height)) return HEVC_INVALID;
  for (int at = 0; at < data_size;) {
    if (data_size - at < length_size) return HEVC_INVALID;
    uint32_t length = read_be(data + at, length_size);
    at += length_size;
    if (length > (uint32_t)(data_size - at)) return HEVC_INVALID;
    if (de265_push_NAL(decoder, data + at, (int)length, 0, nullptr) != DE265_OK) return HEVC_INVALID;
    int type = length > 0 ? (data[at] >> 1) & 0x3f : -1;
    if (type >= NAL_VPS && type <= NAL_PPS && (!decode_pushed(true) || !parameter_sets_fit(width, height))) return HEVC_INVALID;
    at += (int)length;
  }
  if (de265_flush_data(decoder) != DE265_OK || !decode_pushed()) return HEVC_INVALID;
  picture = de265_get_next_picture(decoder);
  return picture ? HEVC_OK : HEVC_INVALID;
}

// The lent picture's facts: channel 0 luma, 1 Cb, 2 Cr.
int pg_hevc_width(int channel) { return de265_get_image_width(picture, channel); }
int pg_hevc_height(int channel) { return de265_get_image_height(picture, channel); }
int pg_hevc_bits(int channel) { return de265_get_bits_per_pixel(picture, channel); }
// de265_chroma: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
int pg_hevc_chroma(void) { return de265_get_chroma_format(picture); }
// The plane's first sample; its rows are pg_hevc_stride bytes apart (2 bytes a sample above 8 bits).
const uint8_t *pg_hevc_plane(int channel) { return de265_get_image_plane(picture, channel, nullptr); }
int pg_hevc_stride(int channel) {
  int stride = 0;
  de265_get_image_plane(picture, channel, &stride);
  return stride;
}

// Drops the picture and the decoder (their memory goes back to malloc for the next tile).
void pg_hevc_release(void) {
  picture = nullptr;
  if (decoder) de265_free_decoder(decoder);
  decoder = nullptr;
}

} // extern "C"
