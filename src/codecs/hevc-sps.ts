// The picture size an HEVC sequence parameter set (SPS) declares, read in TypeScript before any
// decoder sees it (H.265 7.3.2.2). A HEIC item's size comes from its ispe property, but the
// decoder allocates what the SPS says, and an SPS may sit in the hvcC box or in band, among the
// item's own NAL units: both are read here and held to the declared size (heic-structure.ts),
// before the charge and before libheif or our own decoder (native/hevc/hevc_tile.cc) runs.

import { invalidImage } from "./bytes.ts";

/** HEVC NAL unit type of a sequence parameter set. */
export const NAL_SPS = 33;

/** The NAL unit type in the first byte of its two-byte header. */
export function nalType(nal: Uint8Array): number {
  return nal.length > 0 ? (nal[0]! >> 1) & 0x3f : -1;
}

/**
 * The SPS fields up to the picture size fit in far fewer bytes than this (a profile-tier-level of
 * eight sub-layers is 44 bytes); only this much of a NAL unit is unescaped.
 */
const SPS_HEAD_BYTES = 128;

/** The payload of a NAL unit (after its two-byte header) with emulation prevention bytes removed, up to `limit` bytes. */
export function rbspOf(nal: Uint8Array, limit = SPS_HEAD_BYTES): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (let i = 2; i < nal.length && out.length < limit; i++) {
    const byte = nal[i]!;
    if (zeros >= 2 && byte === 3) {
      zeros = 0;
      continue;
    }
    zeros = byte === 0 ? zeros + 1 : 0;
    out.push(byte);
  }
  return new Uint8Array(out);
}

/** Bits of an RBSP, most significant first; reading past its end is an invalid image. */
export class BitReader {
  at = 0;
  private readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  u(bits: number): number {
    let value = 0;
    for (let k = 0; k < bits; k++) {
      if (this.at >= this.bytes.length * 8) throw invalidImage("The HEIC's HEVC parameter set is truncated.");
      value = value * 2 + ((this.bytes[this.at >> 3]! >> (7 - (this.at & 7))) & 1);
      this.at++;
    }
    return value;
  }

  /** ue(v): an Exp-Golomb code of at most 32 leading zeros (a larger one is no H.265 value). */
  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) if (++zeros > 32) throw invalidImage("The HEIC's HEVC parameter set holds an impossible number.");
    return 2 ** zeros - 1 + this.u(zeros);
  }
}

/** An SPS's coded picture size, and where its two fields lie in the RBSP (bit offsets: start of width, end of height). */
export interface SpsSize {
  width: number;
  height: number;
  sizeBits: [number, number];
}

/** The coded picture size (pic_width/height_in_luma_samples) of an SPS NAL unit. */
export function readSpsSize(nal: Uint8Array): SpsSize {
  const r = new BitReader(rbspOf(nal));
  r.u(4); // sps_video_parameter_set_id
  const subLayers = r.u(3); // sps_max_sub_layers_minus1
  r.u(1); // sps_temporal_id_nesting_flag
  skipProfileTierLevel(r, subLayers);
  r.ue(); // sps_seq_parameter_set_id
  if (r.ue() === 3) r.u(1); // chroma_format_idc; separate_colour_plane_flag
  const start = r.at;
  const width = r.ue();
  const height = r.ue();
  return { width, height, sizeBits: [start, r.at] };
}

/** profile_tier_level(1, maxNumSubLayersMinus1): the general profile and level, then each sub-layer's. */
function skipProfileTierLevel(r: BitReader, subLayers: number): void {
  r.u(32); // profile space, tier, profile idc, compatibility flags (first 24 bits)
  r.u(32); // compatibility flags (last 8), source flags, constraint flags
  r.u(32); // constraint flags, general_level_idc
  const present: [boolean, boolean][] = [];
  for (let i = 0; i < subLayers; i++) present.push([r.u(1) === 1, r.u(1) === 1]);
  if (subLayers > 0) for (let i = subLayers; i < 8; i++) r.u(2); // reserved_zero_2bits
  for (const [profile, level] of present) {
    if (profile) r.u(88);
    if (level) r.u(8);
  }
}
